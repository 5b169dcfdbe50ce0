import type { CaseFactory } from "./types";
import { foundationCases } from "./cases/foundation";
import { exportCases, exportDataCases } from "./cases/export";
import { tableCases } from "./cases/tables";
import { contentCases } from "./cases/content";
import { formulaCases } from "./cases/formula";
import { automationCases } from "./cases/automations";
import { portalCases } from "./cases/portals";
import { collabCases } from "./cases/collab";
import { searchCases } from "./cases/search";
import { tableCsvCases } from "./cases/tableCsv";
import { markdownCases } from "./cases/markdown";
import { mcpCases } from "./cases/mcp";
import { queryCases, viewCases } from "./cases/query";
import { bulkRowCases } from "./cases/bulkRows";
import { commentCases } from "./cases/comments";
import { oauthCases } from "./cases/oauth";
import { changeCases } from "./cases/changes";
import { webhookCases } from "./cases/webhooks";
import { auditCases } from "./cases/audit";

/** Each area adds its factory here; the suite in security.test.ts runs them all. */
export const caseFactories: Record<string, CaseFactory> = {
  foundation: foundationCases,
  export: exportCases,
  exportData: exportDataCases,
  tables: tableCases,
  content: contentCases,
  formula: formulaCases,
  automations: automationCases,
  portals: portalCases,
  collab: collabCases,
  search: searchCases,
  tableCsv: tableCsvCases,
  markdown: markdownCases,
  mcp: mcpCases,
  query: queryCases,
  bulkRows: bulkRowCases,
  comments: commentCases,
  changes: changeCases,
  webhooks: webhookCases,
  audit: auditCases,
  views: viewCases,
  oauth: oauthCases,
};
