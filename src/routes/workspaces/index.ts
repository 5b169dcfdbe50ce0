/** The workspace operations, in registration order: `/workspace/all/…` before `/workspace/{id}`. */
import type { Router } from "../../openapi";
import { registerAddWorkspaceCollaborator } from "./addCollaborator";
import { registerCreateWorkspace } from "./create";
import { registerGetWorkspace } from "./get";
import { registerListWorkspaces } from "./listByOrganization";
import { registerRemoveWorkspaceCollaborator } from "./removeCollaborator";
import { registerUpdateWorkspace } from "./update";

export function registerWorkspaceRoutes(app: Router) {
  registerCreateWorkspace(app);
  registerListWorkspaces(app);
  registerGetWorkspace(app);
  registerUpdateWorkspace(app);
  registerAddWorkspaceCollaborator(app);
  registerRemoveWorkspaceCollaborator(app);
}
