import type { Router } from "../../openapi";
import { registerCallMcp } from "./call";

export function registerMcpRoutes(app: Router) {
  registerCallMcp(app);
}
