/** Small builders shared by every route definition, so each route file states only what is its own. */
import { z } from "@hono/zod-openapi";
import { IdSchema } from "./schemas/ids";

export { errorResponses, onlyErrorResponses } from "./http/errors";

export const security = [{ bearer: [] as string[] }];

/**
 * The top-level tags of /openapi.json (docs/api-guide.md › Discovery: every tag declared, with a description). Tags used by a route
 * but missing here are still declared (see declaredTags), with a generic description until one is written here.
 */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Identity: "Users, personal access tokens and the caller's own profile",
  Organizations: "Organizations and their members",
  OAuth: "OAuth 2.1 for third-party apps: authorization with PKCE, tokens, revocation and metadata",
  Workspaces: "Workspaces of an organization and their collaborators",
  Projects: "Projects of a workspace",
  Documents: "Documents and folders: the tree, sharing, publishing, trash and access checks",
  DOCX: "Documents held as DOCX files: upload, new versions and export",
  References: "Table references and clause references between documents and tables",
  Tables: "Tables of a project",
  Columns: "Table columns, their types and computed (formula) columns",
  Rows: "Table rows, one at a time or in bulk, and paging",
  Cells: "Single table cells",
  Content: "A document's block content and its settings",
  Media: "Audio recordings and their signed stream URLs",
  Snapshots: "Named versions of a document's content, and restoring them",
  Notifications: "The caller's notifications",
  Export: "Document data export and PDF conversion",
  Portals: "Published portals: a project's documents as a public or password-protected reader site",
  Automations: "Scheduled and event-driven automations and their runs",
  Search: "Full-text search over the documents, files and rows the caller can read",
  Comments: "Comment threads on documents, blocks, rows and cells: replies, mentions, reactions, resolving",
  Webhooks: "Webhook subscriptions: a project's or table's change log delivered to a URL in signed, ordered batches",
  Changes: "The change log: the change feed of a table, project or workspace, and a record's history",
  Discovery: "This OpenAPI document, the interactive reference and liveness",
};

/** Every tag used by an operation, in first-use order, with its description. */
export function declaredTags(used: Iterable<string>) {
  return [...new Set(used)].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `${name} operations` }));
}

export const dataOf = <T extends z.ZodType>(schema: T) => z.object({ data: schema });

export function jsonResponse<T extends z.ZodType>(schema: T, description = "OK") {
  return { description, content: { "application/json": { schema } } };
}

export function okData<T extends z.ZodType>(schema: T, description = "OK") {
  return { 200: jsonResponse(dataOf(schema), description) };
}

export function jsonBody<T extends z.ZodType>(schema: T) {
  return { body: { required: true, content: { "application/json": { schema } } } };
}

/** A path parameter in the id pattern of docs/api-guide.md › Conventions. */
export function pathId(name: string) {
  return IdSchema.openapi({ param: { name, in: "path" }, example: "01JD5Y7X9Q0000000000000000" });
}

/**
 * Members a record's own response carries but a client cannot set: accepted so a client can send back
 * what it read, then dropped (parsed to undefined, so no handler can pick them up by spreading the body).
 */
export function ignored<const K extends string>(...keys: K[]) {
  const dropped = z
    .unknown()
    .optional()
    .transform((): undefined => undefined)
    .openapi({ description: "Read-only; ignored when sent" });
  return Object.fromEntries(keys.map((k) => [k, dropped])) as Record<K, typeof dropped>;
}

/** Caps the JSON size of a free-form member, so it can never reach D1's 2 MB per-value limit as a 500. */
/** The length of `value` as JSON; Infinity for a value nested too deep to write (the stack runs out). */
export function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value).length;
  } catch {
    return Infinity;
  }
}

export function maxJsonBytes(maxBytes: number) {
  return [
    (value: unknown) => jsonLength(value ?? null) <= maxBytes,
    `must be at most ${maxBytes / 1024} KiB as JSON`,
  ] as const;
}

export const IconSchema = z.strictObject({ name: z.string().max(200), color: z.string().max(200) }).openapi("Icon");
export const EmojiSchema = z
  .strictObject({ unified: z.string().max(200), emojiStyle: z.string().max(200) })
  .openapi("Emoji");
export const NameSchema = z.string().trim().min(1).max(500);
export const EmailSchema = z
  .email()
  .max(320)
  .transform((e) => e.toLowerCase());

import type { OpenAPIHono } from "@hono/zod-openapi";
import type { HonoEnv } from "./env";
export type Router = OpenAPIHono<HonoEnv>;

/** An id carried in a body (same pattern as path ids). */
export { IdSchema as IdSchemaBody } from "./schemas/ids";
