/** The organization operations, in registration order: `/organization/all` before `/organization/{orgId}/…`. */
import type { Router } from "../../openapi";
import { registerAddOrganizationMember } from "./addMember";
import { registerCreateOrganization } from "./create";
import { registerListOrganizations } from "./list";

export function registerOrganizationRoutes(app: Router) {
  registerCreateOrganization(app);
  registerListOrganizations(app);
  registerAddOrganizationMember(app);
}
