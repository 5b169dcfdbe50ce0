import type { Router } from "../openapi";
import { registerAdminRoutes } from "./admin";
import { registerTokenRoutes } from "./tokens";
import { registerMeRoutes } from "./me";
import { registerOrganizationRoutes } from "./organizations";
import { registerNotificationRoutes } from "./notifications";
import { registerWorkspaceRoutes } from "./workspaces";
import { registerProjectRoutes } from "./projects";
import { registerPortalRoutes } from "./portals";
import { registerDocumentRoutes } from "./documents";
import { registerContentRoutes } from "./content";
import { registerDocxRoutes } from "./docx";
import { registerMarkdownRoutes } from "./markdown";
import { registerMediaRoutes } from "./media";
import { registerExportRoutes } from "./export";
import { registerSnapshotRoutes } from "./snapshots";
import { registerTableReferenceRoutes } from "./tableReferences";
import { registerTableRoutes } from "./tables";
import { registerClauseReferenceRoutes } from "./clauseReferences";
import { registerColumnRoutes } from "./columns";
import { registerCellRoutes } from "./cells";
import { registerRowRoutes } from "./rows";
import { registerViewRoutes } from "./views";
import { registerTableCsvRoutes } from "./tableCsv";
import { registerAutomations } from "./automations";
import { registerCollaboration } from "./collab";
import { registerParseFormula } from "./formulas/parse";
import { registerSearchRoutes } from "./search";
import { registerMcpRoutes } from "./mcp";
import { registerCommentRoutes } from "./comments";
import { registerOAuthRoutes } from "./oauth";
import { registerChangeRoutes } from "./changes";
import { registerWebhookSubscriptions } from "./webhooks";
import { registerAuditRoutes } from "./audit";

/** Each resource registers its own operations; static paths come before parameterised siblings. */
export function registerRoutes(app: Router) {
  registerAdminRoutes(app);
  registerTokenRoutes(app);
  registerMeRoutes(app);
  registerMcpRoutes(app);
  registerOrganizationRoutes(app);
  // /organization/{organizationId}/oauth-app/all before /organization/{organizationId}/oauth-app/{clientId}
  registerOAuthRoutes(app);

  registerWorkspaceRoutes(app);
  registerProjectRoutes(app);

  registerPortalRoutes(app);

  // /document/docx/… before /document/{documentId}/…
  registerDocxRoutes(app);
  registerMarkdownRoutes(app);
  registerDocumentRoutes(app);

  // Every /table/<static>/… route before /table/{tableId}/…
  registerCommentRoutes(app);
  registerChangeRoutes(app);
  registerAuditRoutes(app);
  registerTableReferenceRoutes(app);
  registerTableRoutes(app);
  registerColumnRoutes(app);
  registerCellRoutes(app);
  registerViewRoutes(app);
  registerRowRoutes(app);
  registerTableCsvRoutes(app);
  registerParseFormula(app);

  registerClauseReferenceRoutes(app);
  registerContentRoutes(app);
  registerMediaRoutes(app);
  registerSnapshotRoutes(app);
  registerCollaboration(app);

  registerNotificationRoutes(app);

  registerExportRoutes(app);

  registerAutomations(app);
  registerWebhookSubscriptions(app);

  registerSearchRoutes(app);
}
