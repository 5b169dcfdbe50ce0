/**
 * Scoped tokens (docs/api-guide.md › Tokens and scopes): the scope every operation needs, in one table, and the
 * check of a token's scopes against it. A token without scopes has its user's full rights; a token with scopes may
 * call an operation only when one of them covers the operation's scope (`<family>:write` covers `<family>:read`,
 * `admin` covers only `admin`). An operation missing from the table needs `admin` (fail closed);
 * test/shared/token-scopes.test.ts fails when an operation of the OpenAPI document is missing from it.
 */
import { ApiError } from "../errors";

export const SCOPE_FAMILIES = [
  "documents",
  "tables",
  "automations",
  "portals",
  "members",
  "changes",
  "comments",
] as const;
export type ScopeFamily = (typeof SCOPE_FAMILIES)[number];
export type Scope = `${ScopeFamily}:${"read" | "write"}` | "admin";

/** Every scope a token may carry, as `POST /token` accepts them. */
export const ALL_SCOPES: readonly Scope[] = [
  ...SCOPE_FAMILIES.flatMap((f) => [`${f}:read`, `${f}:write`] as Scope[]),
  "admin",
];

/** Operations no user token calls (public, the deployment's ADMIN_TOKEN, signed URLs and tickets): no scope applies. */
export const NO_USER_TOKEN = "none" as const;

/** Operations any valid token may call, whatever its scopes: each of their parts checks its own (the MCP tools). */
export const ANY_SCOPE = "any" as const;

type Needed = Scope | typeof NO_USER_TOKEN | typeof ANY_SCOPE;

const r = (f: ScopeFamily, ...ops: string[]) => ops.map((op) => [op, `${f}:read` as Scope] as const);
const w = (f: ScopeFamily, ...ops: string[]) => ops.map((op) => [op, `${f}:write` as Scope] as const);

/** operationId → the scope a scoped token needs to call it. */
export const OPERATION_SCOPES: ReadonlyMap<string, Needed> = new Map<string, Needed>([
  ...r(
    "documents",
    "checkDocumentAccess",
    "exportDocx",
    "exportFolderMarkdownZip",
    "exportMarkdownDocument",
    "getAudio",
    "getClauseReference",
    "getContent",
    "getDocument",
    "getDocumentSettings",
    "getDocumentsData",
    "getProject",
    "getSnapshot",
    "getTableReference",
    "getWorkspace",
    "listClauseReferences",
    "listDocuments",
    "listProjects",
    "listSnapshots",
    "listTableReferences",
    "listWorkspaces",
    "docToPdf",
    "search",
  ),
  ...w(
    "documents",
    // A collaboration ticket opens a live editing session with the user's own rights: it needs write.
    "createCollaborationTicket",
    "createClauseReference",
    "createDocument",
    "createDocx",
    "createProject",
    "createSnapshot",
    "createTableReference",
    "deleteClauseReference",
    "deleteDocument",
    "deleteSnapshot",
    "deleteTableReference",
    "importMarkdownDocument",
    "markDocxSeeded",
    "putContent",
    "putDocxVersion",
    "restoreDocument",
    "restoreSnapshot",
    "updateDocument",
    "updateDocumentSettings",
    "updateProject",
    "updateSnapshot",
    "uploadAudio",
  ),
  ...r(
    "tables",
    "exportTableCsv",
    "getCell",
    "getRow",
    "getTable",
    "listColumns",
    "listRows",
    "listTableIds",
    "parseFormula",
    "queryRows",
    "aggregateRows",
    "getView",
    "listViews",
    "listViewRows",
  ),
  ...w(
    "tables",
    "applyComputedColumn",
    "bulkCreateRows",
    "createColumn",
    "createRow",
    "createTable",
    "deleteColumn",
    "deleteRow",
    "deleteTable",
    "importTableCsv",
    "updateColumn",
    "updateTable",
    "upsertCell",
    "bulkUpdateRows",
    "upsertRows",
    "bulkDeleteRows",
    "bulkRestoreRows",
    "patchRow",
    "createView",
    "updateView",
    "deleteView",
  ),
  ...r(
    "changes",
    "listChanges",
    "getRowHistory",
    "getDocumentHistory",
    "listWebhookSubscriptions",
    "getWebhookSubscription",
    "listWebhookSubscriptionDeliveries",
  ),
  ...w(
    "changes",
    "createWebhookSubscription",
    "updateWebhookSubscription",
    "deleteWebhookSubscription",
    "rotateWebhookSubscriptionSecret",
    "redeliverWebhookSubscriptionDelivery",
    "replayWebhookSubscription",
  ),
  ...r("comments", "getComment", "listDocumentComments", "listRowComments"),
  ...w(
    "comments",
    "createDocumentComment",
    "createRowComment",
    "replyToComment",
    "updateComment",
    "deleteComment",
    "resolveComment",
    "reopenComment",
    "putCommentReaction",
    "deleteCommentReaction",
  ),
  ...r(
    "automations",
    "getAutomation",
    "getAutomationRun",
    "listAutomationRuns",
    "listAutomations",
    "listWebhookDeliveries",
  ),
  ...w(
    "automations",
    "createAutomation",
    "deleteAutomation",
    "redeliverWebhook",
    "retryAutomationRun",
    "rotateWebhookSecret",
    "runAutomation",
    "updateAutomation",
  ),
  ...r("portals", "getPublishedBranding", "getPublishedProject", "loginPublishedProject"),
  ...w(
    "portals",
    "publishDocument",
    "publishProject",
    "putProjectBranding",
    "unpublishDocument",
    "unpublishProject",
    "updatePublishedEntry",
    "verifyPublishedDomain",
  ),
  ...r("members", "getMe", "listOrganizations", "listNotifications"),
  ...w(
    "members",
    "addOrganizationMember",
    "addWorkspaceCollaborator",
    "inviteUser",
    "markNotificationRead",
    "removeWorkspaceCollaborator",
  ),
  ["callMcp", ANY_SCOPE],
  ["createOrganization", "admin"],
  ["createWorkspace", "admin"],
  ["updateWorkspace", "admin"],
  ["createOAuthApp", "admin"],
  ["listOAuthApps", "admin"],
  ["deleteOAuthApp", "admin"],
  // Managing tokens is managing credentials: only a full token, or one with `admin`, may.
  ["createToken", "admin"],
  // The audit log tells who did what across the organization: an owner's or admin's credential, not a family's.
  ["listAuditLog", "admin"],
  ["exportAuditLog", "admin"],
  ["listTokens", "admin"],
  ["revokeToken", "admin"],
  ...[
    "abortLogicalShardMove",
    // OAuth's own endpoints: the app authenticates with its client secret, the consent form with the token it carries.
    "approveOAuth",
    "authorizeOAuth",
    "exchangeOAuthToken",
    "getOAuthMetadata",
    "revokeOAuthToken",
    "connectCollaboration",
    "createUser",
    "dropMovedShardCopy",
    "getApiReference",
    "getOpenApiDocument",
    "health",
    "inspectCollaborationRoom",
    "moveLogicalShard",
    "reindexSearch",
    "streamAudio",
  ].map((op) => [op, NO_USER_TOKEN] as const),
]);

/** The scope an operation needs (`admin` for one missing from the table). */
export function scopeOf(operationId: string): Needed {
  return OPERATION_SCOPES.get(operationId) ?? "admin";
}

/** Whether a token's scopes (null: a full token) allow `needed`. */
export function scopesAllow(scopes: readonly string[] | null, needed: Needed): boolean {
  if (scopes === null || needed === NO_USER_TOKEN || needed === ANY_SCOPE) return true;
  if (scopes.includes(needed)) return true;
  return needed.endsWith(":read") && scopes.includes(needed.replace(/:read$/, ":write"));
}

/** 403 naming the scope a token lacks (docs/api-guide.md › Tokens and scopes). */
export function missingScope(needed: string): ApiError {
  return new ApiError("ForbiddenError", `This token's scopes do not include ${needed}`, {
    details: [{ path: "scope", message: `needs ${needed}` }],
  });
}

/** Checks a token's scopes against an operation's (throws missingScope). */
export function requireScope(scopes: readonly string[] | null, needed: Needed) {
  if (!scopesAllow(scopes, needed)) throw missingScope(needed);
}
