import type { Router } from "../../openapi";
import { registerConnectCollaboration } from "./connect";
import { registerCreateCollaborationTicket } from "./ticket";
import { registerInspectCollaborationRoom } from "./diagnostics";

/** Real-time collaborative editing (docs/api-guide.md › Automations, published portals, collaborative editing). */
export function registerCollaboration(app: Router) {
  registerCreateCollaborationTicket(app);
  registerConnectCollaboration(app);
  registerInspectCollaborationRoom(app);
}
