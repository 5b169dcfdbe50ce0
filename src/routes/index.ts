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
import { registerCreateDocx } from "./docx/create";
import { registerPutDocxVersion } from "./docx/putVersion";
import { registerExportDocx } from "./docx/export";
import { registerMarkDocxSeeded } from "./docx/markSeeded";
import { registerGetContent } from "./content/get";
import { registerPutContent } from "./content/put";
import { registerDocumentSettings } from "./content/settings";
import { registerUploadAudio } from "./media/uploadAudio";
import { registerGetAudio } from "./media/getAudio";
import { registerStreamAudio } from "./media/streamAudio";
import { registerCreateSnapshot } from "./snapshots/create";
import { registerListSnapshots } from "./snapshots/list";
import { registerGetSnapshot } from "./snapshots/get";
import { registerUpdateSnapshot } from "./snapshots/update";
import { registerRestoreSnapshot } from "./snapshots/restore";
import { registerDeleteSnapshot } from "./snapshots/delete";
import { registerListNotifications } from "./notifications/list";
import { registerMarkNotificationRead } from "./notifications/markRead";
import { registerDocToPdf } from "./export/docToPdf";
import { registerGetDocumentsData } from "./export/getDocumentsData";
import { registerTableReferenceRoutes } from "./tableReferences";
import { registerTableRoutes } from "./tables";
import { registerClauseReferenceRoutes } from "./clauseReferences";
import { registerColumnRoutes } from "./columns";
import { registerCellRoutes } from "./cells";
import { registerRowRoutes } from "./rows";
import { registerPortalRoutes } from "./portals";

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
  registerPortalRoutes(app);

  registerInviteUser(app);
  registerCreateDocx(app);
  registerPutDocxVersion(app);
  registerExportDocx(app);
  registerMarkDocxSeeded(app);
  registerCreateDocument(app);
  registerListDocuments(app);
  registerGetDocument(app);
  registerUpdateDocument(app);
  registerDeleteDocument(app);
  registerRestoreDocument(app);
  registerPublishDocument(app);
  registerCheckDocumentAccess(app);

  // Every /table/<static>/… route before /table/{tableId}/…
  registerTableReferenceRoutes(app);
  registerTableRoutes(app);
  registerColumnRoutes(app);
  registerCellRoutes(app);
  registerRowRoutes(app);

  registerClauseReferenceRoutes(app);
  registerGetContent(app);
  registerPutContent(app);
  registerDocumentSettings(app);

  registerUploadAudio(app);
  registerStreamAudio(app);
  registerGetAudio(app);

  registerCreateSnapshot(app);
  registerListSnapshots(app);
  registerGetSnapshot(app);
  registerUpdateSnapshot(app);
  registerRestoreSnapshot(app);
  registerDeleteSnapshot(app);

  registerListNotifications(app);
  registerMarkNotificationRead(app);

  registerDocToPdf(app);
  registerGetDocumentsData(app);
}
