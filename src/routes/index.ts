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
import { registerCreateTable } from "./tables/create";
import { registerGetTable } from "./tables/get";
import { registerUpdateTable } from "./tables/update";
import { registerDeleteTable } from "./tables/delete";
import { registerListTableIds } from "./tables/listIds";
import { registerCreateColumn } from "./columns/create";
import { registerUpdateColumn } from "./columns/update";
import { registerDeleteColumn } from "./columns/delete";
import { registerListColumns } from "./columns/list";
import { registerCreateRow } from "./rows/create";
import { registerBulkCreateRows } from "./rows/bulkCreate";
import { registerListRows } from "./rows/list";
import { registerGetRow } from "./rows/get";
import { registerDeleteRow } from "./rows/delete";
import { registerUpsertCell } from "./cells/upsert";
import { registerGetCell } from "./cells/get";
import { registerCreateTableReference } from "./tableReferences/create";
import { registerGetTableReference } from "./tableReferences/get";
import { registerListTableReferences } from "./tableReferences/listByDocument";
import { registerDeleteTableReference } from "./tableReferences/delete";
import { registerCreateClauseReference } from "./clauseReferences/create";
import { registerGetClauseReference } from "./clauseReferences/get";
import { registerListClauseReferences } from "./clauseReferences/listByDocument";
import { registerDeleteClauseReference } from "./clauseReferences/delete";
import { registerApplyComputedColumn } from "./columns/computedApply";
import { registerAutomations } from "./automations";
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
  registerListTableReferences(app);
  registerListClauseReferences(app);

  // Every /table/<static>/… route before /table/{tableId}/…
  registerCreateTableReference(app);
  registerGetTableReference(app);
  registerDeleteTableReference(app);
  registerListTableIds(app);
  registerListColumns(app);
  registerUpdateColumn(app);
  registerDeleteColumn(app);
  registerGetRow(app);
  registerDeleteRow(app);
  registerUpsertCell(app);
  registerGetCell(app);
  registerCreateTable(app);
  registerGetTable(app);
  registerUpdateTable(app);
  registerDeleteTable(app);
  registerCreateColumn(app);
  registerCreateRow(app);
  registerBulkCreateRows(app);
  registerListRows(app);

  registerCreateClauseReference(app);
  registerGetClauseReference(app);
  registerDeleteClauseReference(app);
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
  registerApplyComputedColumn(app);

  registerAutomations(app);
}
