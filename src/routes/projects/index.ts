/** The project operations, in registration order: `/project/all/…` before `/project/{id}`. */
import type { Router } from "../../openapi";
import { registerCreateProject } from "./create";
import { registerGetProject } from "./get";
import { registerListProjects } from "./listByWorkspace";
import { registerUpdateProject } from "./update";

export function registerProjectRoutes(app: Router) {
  registerCreateProject(app);
  registerListProjects(app);
  registerGetProject(app);
  registerUpdateProject(app);
}
