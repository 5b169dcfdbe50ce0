import type { Router } from "../openapi";
import { registerCreateUser } from "./admin/createUser";
import { registerCreateToken } from "./tokens/create";
import { registerListTokens } from "./tokens/list";
import { registerRevokeToken } from "./tokens/revoke";
import { registerGetMe } from "./me/get";
import { registerCreateOrganization } from "./organizations/create";
import { registerListOrganizations } from "./organizations/list";
import { registerAddOrganizationMember } from "./organizations/addMember";
import { registerCreateWorkspace } from "./workspaces/create";
import { registerGetWorkspace } from "./workspaces/get";
import { registerListWorkspaces } from "./workspaces/listByOrganization";
import { registerUpdateWorkspace } from "./workspaces/update";
import { registerAddWorkspaceCollaborator } from "./workspaces/addCollaborator";
import { registerRemoveWorkspaceCollaborator } from "./workspaces/removeCollaborator";
import { registerCreateProject } from "./projects/create";
import { registerGetProject } from "./projects/get";
import { registerUpdateProject } from "./projects/update";
import { registerListProjects } from "./projects/listByWorkspace";
import { registerCreateDocument } from "./documents/create";
import { registerGetDocument } from "./documents/get";
import { registerListDocuments } from "./documents/listByProject";
import { registerUpdateDocument } from "./documents/update";
import { registerDeleteDocument } from "./documents/delete";
import { registerRestoreDocument } from "./documents/restore";
import { registerInviteUser } from "./documents/invite";
import { registerCheckDocumentAccess } from "./documents/checkAccess";
import { registerPublishDocument } from "./documents/publish";
import { registerListNotifications } from "./notifications/list";
import { registerMarkNotificationRead } from "./notifications/markRead";
import { registerApplyComputedColumn } from "./columns/computedApply";

/** Static paths are registered before parameterised siblings so `/x/all/...` never reads as `/x/{id}`. */
export function registerRoutes(app: Router) {
  registerCreateUser(app);
  registerCreateToken(app);
  registerListTokens(app);
  registerRevokeToken(app);
  registerGetMe(app);

  registerCreateOrganization(app);
  registerListOrganizations(app);
  registerAddOrganizationMember(app);

  registerCreateWorkspace(app);
  registerListWorkspaces(app);
  registerGetWorkspace(app);
  registerUpdateWorkspace(app);
  registerAddWorkspaceCollaborator(app);
  registerRemoveWorkspaceCollaborator(app);

  registerCreateProject(app);
  registerListProjects(app);
  registerGetProject(app);
  registerUpdateProject(app);

  registerInviteUser(app);
  registerCreateDocument(app);
  registerListDocuments(app);
  registerGetDocument(app);
  registerUpdateDocument(app);
  registerDeleteDocument(app);
  registerRestoreDocument(app);
  registerPublishDocument(app);
  registerCheckDocumentAccess(app);

  registerListNotifications(app);
  registerMarkNotificationRead(app);

  registerApplyComputedColumn(app);
}
