import { sqliteTable, text, integer, index, primaryKey } from "drizzle-orm/sqlite-core";
import type { CellChanges, ChangeActor } from "./changes";

/**
 * The organization's audit log (docs/api-guide.md › Changes, history and audit): the entries about an organization
 * that have no place in the change log, whose entries belong to a workspace — memberships, invitations, share links,
 * portals, automations, tokens — and the security events (`portal.login_failed`, `export.*`, `download.*`,
 * `admin.*`), each with the client's address. Keyed by the organization, so it lives on (and moves with) the
 * organization's logical shard. `seq` numbers the organization's entries in commit order (MAX + 1 within the
 * organization, evaluated in the inserting statement), so it is copied unchanged by a move and stays ordered after.
 */
export const auditLog = sqliteTable(
  "audit_log",
  {
    organizationId: text("organization_id").notNull(),
    seq: integer("seq").notNull(),
    at: integer("at").notNull(),
    kind: text("kind").notNull(),
    /** What the entry is about (a member's user id, a token, a document, a portal entry…); "" for none. */
    recordId: text("record_id").notNull(),
    workspaceId: text("workspace_id"),
    projectId: text("project_id"),
    /** `{ type, userId?, tokenId?, runId? }` as JSON. */
    actor: text("actor", { mode: "json" }).$type<ChangeActor>().notNull(),
    /** The client's IP address when the deployment trusts CF-Connecting-IP (src/http/clientAddress.ts); else null. */
    clientAddress: text("client_address"),
    /** `{ [field]: { before, after } }`, or what a security event is about (`{ format: { after: "csv" } }`). */
    changes: text("changes", { mode: "json" }).$type<CellChanges | null>(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.seq] }),
    index("audit_log_organization_at_idx").on(t.organizationId, t.at, t.seq),
    index("audit_log_at_idx").on(t.at),
  ],
);
