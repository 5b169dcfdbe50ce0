import type { Router } from "../openapi";
import { registerAdminRoutes } from "./admin";
import { registerTokenRoutes } from "./tokens";
import { registerMeRoutes } from "./me";
import { registerOrganizationRoutes } from "./organizations";
import { registerNotificationRoutes } from "./notifications";
import { registerWorkspaceRoutes } from "./workspaces";
import { registerProjectRoutes } from "./projects";
import { registerDocumentRoutes } from "./documents";
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
  registerAdminRoutes(app);
  registerTokenRoutes(app);
  registerMeRoutes(app);
  registerOrganizationRoutes(app);

  registerWorkspaceRoutes(app);
  registerProjectRoutes(app);

  registerPortalRoutes(app);

  // /document/docx/… before /document/{documentId}/…
  registerCreateDocx(app);
  registerPutDocxVersion(app);
  registerExportDocx(app);
  registerMarkDocxSeeded(app);
  registerDocumentRoutes(app);
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

  registerNotificationRoutes(app);

  registerDocToPdf(app);
  registerGetDocumentsData(app);
  registerApplyComputedColumn(app);

  registerAutomations(app);
}
