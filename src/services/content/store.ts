/**
 * Rich-text content of documents: blocks as JSON in R2 (one immutable object per write), version and size in D1.
 *
 * A write puts its object under a fresh key first, then bumps the version with one D1 statement: conditional on
 * `baseVersion` (`WHERE version = ?`, or insert-if-absent for 0) or an upsert without it. Of two writers with the
 * same baseVersion exactly one changes a row; the loser deletes its own object, so it leaves nothing visible.
 * The object a write replaces is deleted unless a snapshot still points at it (snapshots share the current
 * object instead of copying it).
 */
import { eq, sql, type SQL } from "drizzle-orm";
import { d1Of } from "../../db/d1";
import { documentContents, documentSettings } from "../../db/schema";
import { inJson, insertWhere } from "../../db/sql";
import type { Db } from "../../env";
import { conflict } from "../../errors";
import { newId } from "../../lib/ids";
import type { ServiceContext } from "../context";
import { mapConcurrent } from "../../lib/concurrency";
import { contentBodyStatement } from "../search/queries";
import { anchorsStatement, announceAnchorChanges } from "../comments/anchors";
import { contentBumpStatement, currentContentStatement } from "./queries";
import {
  asStatements,
  contentEntryQuery,
  diffEntryQuery,
  type EntryBy,
  type EntryPlace,
  type FieldWrite,
} from "../changes/recordLog";
import type { BatchItem } from "drizzle-orm/batch";

export interface DocumentContent {
  documentId: string;
  version: number;
  blocks: unknown;
}

export interface ContentMeta {
  version: number;
  r2Key: string;
  size: number;
}

/** Concurrent R2 reads per request; Workers queue sub-requests beyond six open at once anyway. */
const R2_CONCURRENCY = 6;

export const EMPTY_BLOCKS_JSON = "[]";

export function contentObjectKey(documentId: string) {
  return `content/${documentId}/${newId()}.json`;
}

export async function readContentMeta(ctx: ServiceContext, documentId: string): Promise<ContentMeta | null> {
  const [row] = await ctx.db
    .select({ version: documentContents.version, r2Key: documentContents.r2Key, size: documentContents.size })
    .from(documentContents)
    .where(eq(documentContents.documentId, documentId));
  return row ?? null;
}

/**
 * The stored JSON text of the current content. A write deletes the object it replaces, so a read that saw the old
 * key just before a write can find it gone: it then reads the metadata again and follows the new key.
 */
export async function readCurrentText(
  ctx: ServiceContext,
  input: { documentId: string; meta: ContentMeta | null },
): Promise<{ version: number; blocksJson: string }> {
  const { documentId } = input;
  let { meta } = input;
  const r2 = ctx.env.BLOBS;
  for (let attempt = 0; attempt < 5 && meta; attempt++) {
    const obj = await r2.get(meta.r2Key);
    if (obj) return { version: meta.version, blocksJson: await obj.text() };
    meta = await readContentMeta(ctx, documentId);
  }
  if (!meta) return { version: 0, blocksJson: EMPTY_BLOCKS_JSON };
  throw new Error(`content object ${meta.r2Key} of ${documentId} is missing`);
}

/** The blocks of one document as the JSON text stored for them (never parsed), with its version. */
export async function readContentJson(
  ctx: ServiceContext,
  documentId: string,
): Promise<{ version: number; blocksJson: string }> {
  return readCurrentText(ctx, { documentId, meta: await readContentMeta(ctx, documentId) });
}

/**
 * Contents of many documents in one D1 query plus concurrent R2 reads (E5). Every requested id is in the map;
 * a document never written has version 0 and blocks `[]`. Access is the caller's business.
 */
export async function readContents(
  ctx: ServiceContext,
  documentIds: readonly string[],
): Promise<Map<string, DocumentContent>> {
  if (documentIds.length === 0) return new Map();
  return readContentsOf(ctx, { documentIds, metas: await contentMetasQuery(ctx.db, documentIds) });
}

/** The content metadata of many documents, batchable (see `readContentsOf`). */
export function contentMetasQuery(db: Db, documentIds: readonly string[]) {
  return db
    .select({
      documentId: documentContents.documentId,
      version: documentContents.version,
      r2Key: documentContents.r2Key,
      size: documentContents.size,
    })
    .from(documentContents)
    .where(inJson(documentContents.documentId, [...new Set(documentIds)]));
}

/** `readContents` from metadata already read (`contentMetasQuery` in a larger batch): only R2 reads. */
export async function readContentsOf(
  ctx: ServiceContext,
  {
    documentIds,
    metas: rows,
  }: { documentIds: readonly string[]; metas: readonly ({ documentId: string } & ContentMeta)[] },
): Promise<Map<string, DocumentContent>> {
  const out = new Map<string, DocumentContent>();
  for (const id of new Set(documentIds)) out.set(id, { documentId: id, version: 0, blocks: [] });
  await mapConcurrent(rows, R2_CONCURRENCY, async ({ documentId, ...meta }) => {
    const { version, blocksJson } = await readCurrentText(ctx, { documentId, meta });
    out.set(documentId, { documentId, version, blocks: JSON.parse(blocksJson) });
  });
  return out;
}

export interface WriteContentInput {
  documentId: string;
  userId: string;
  /** The blocks as JSON text; stored verbatim, so a read returns exactly these bytes. */
  blocksJson: string;
  /** When given, the write happens only if this is still the current version (else 409, nothing written). */
  baseVersion?: number;
  /** Who the change log names for this version and through what (by default the context's caller and source). */
  by?: EntryBy;
}

/**
 * Stores a new content version and returns it. One D1 batch (a transaction) reads the key being replaced, with
 * whether a snapshot shares it, and bumps the version: with `baseVersion` only if it is still current, without it
 * unconditionally (an upsert), so concurrent unconditional writes serialize into distinct versions.
 */
export async function writeContent(ctx: ServiceContext, input: WriteContentInput): Promise<{ version: number }> {
  const { documentId, userId, baseVersion } = input;
  const r2 = ctx.env.BLOBS;
  const key = contentObjectKey(documentId);
  const size = new TextEncoder().encode(input.blocksJson).byteLength;
  await r2.put(key, input.blocksJson, { httpMetadata: { contentType: "application/json" } });
  const d1 = d1Of(ctx.db);
  const bump = contentBumpStatement(d1, { documentId, size, key, userId, at: ctx.now, baseVersion });
  try {
    // Inside the transaction, before the bump: no snapshot can start pointing at the old key in between.
    const previous = currentContentStatement(d1, documentId);
    // Comment threads anchored to blocks that this write removes are detached (docs/api-guide.md › Comments).
    const anchors = anchorsStatement(d1, documentId, key, input.blocksJson);
    // The search index's body follows in the same transaction (docs/api-guide.md › Search).
    const [prevResult, bumpResult, , anchorsResult] = await d1.batch<Record<string, unknown>>([
      previous,
      bump,
      contentBodyStatement(d1, documentId, key, input.blocksJson),
      ...(anchors ? [anchors] : []),
      ...asStatements(d1, contentEntryQuery(ctx, { documentId, key, by: input.by })),
    ]);
    const prev = prevResult!.results[0] as { version: number; r2_key: string; shared: number } | undefined;
    const bumped = bumpResult!.results[0] as { version: number } | undefined;
    if (!bumped) throw staleVersion(baseVersion!, prev?.version ?? 0);
    if (prev && !prev.shared) await r2.delete(prev.r2_key);
    announceAnchorChanges(ctx, documentId, anchorsResult);
    return { version: bumped.version };
  } catch (err) {
    await r2.delete(key);
    throw err;
  }
}

/**
 * The first content version of a document created in the same batch (a Markdown import), inserted only `when` the
 * document was (its create may find its parent folder deleted and write nothing).
 */
export function firstContentQuery(
  ctx: ServiceContext,
  p: { documentId: string; key: string; size: number; when: SQL },
) {
  const row = {
    documentId: p.documentId,
    version: 1,
    size: p.size,
    r2Key: p.key,
    updatedBy: ctx.user.id,
    updatedAt: ctx.now,
  };
  return insertWhere(ctx.db, documentContents, row, p.when);
}

function staleVersion(base: number, currentVersion: number) {
  return conflict(`The content changed: baseVersion ${base} is not the current version ${currentVersion}`);
}

export interface DocumentSettings {
  listTemplateId: string;
  importedTermId: string;
}

export const EMPTY_SETTINGS: DocumentSettings = { listTemplateId: "", importedTermId: "" };

/** Settings of many documents in one query (E5); every requested id is in the map, unset ones as empty strings. */
export async function readSettings(
  ctx: ServiceContext,
  documentIds: readonly string[],
): Promise<Map<string, DocumentSettings>> {
  if (documentIds.length === 0) return new Map();
  return settingsOf(documentIds, await settingsQuery(ctx.db, documentIds));
}

/** The settings rows of many documents, batchable (see `settingsOf`). */
export function settingsQuery(db: Db, documentIds: readonly string[]) {
  return db
    .select()
    .from(documentSettings)
    .where(inJson(documentSettings.documentId, [...new Set(documentIds)]));
}

/** Every requested id's settings from rows already read; unset ones as empty strings. */
export function settingsOf(
  documentIds: readonly string[],
  rows: readonly (typeof documentSettings.$inferSelect)[],
): Map<string, DocumentSettings> {
  const out = new Map<string, DocumentSettings>(documentIds.map((id) => [id, { ...EMPTY_SETTINGS }]));
  for (const r of rows) out.set(r.documentId, { listTemplateId: r.listTemplateId, importedTermId: r.importedTermId });
  return out;
}

/** Sets the given members (others keep their value) in one upsert; returns the resulting settings. */
/**
 * Before the settings upsert: `document.updated` with the settings it changes (an unset one reads as ""), before
 * and after; nothing when none changes.
 */
function settingsEntryQuery(
  ctx: ServiceContext,
  p: { documentId: string; patch: Partial<DocumentSettings>; place: EntryPlace },
) {
  const stored = (column: string) => sql`COALESCE(${sql.raw(`s.${column}`)}, '')`;
  const fields: FieldWrite[] = [];
  if (p.patch.listTemplateId !== undefined)
    fields.push({ field: "listTemplateId", column: stored("list_template_id"), after: p.patch.listTemplateId });
  if (p.patch.importedTermId !== undefined)
    fields.push({ field: "importedTermId", column: stored("imported_term_id"), after: p.patch.importedTermId });
  return diffEntryQuery(ctx, {
    kind: "document.updated",
    recordId: p.documentId,
    place: p.place,
    table: sql`documents d LEFT JOIN document_settings s ON s.document_id = d.id`,
    guard: sql`d.id = ${p.documentId}`,
    fields,
  });
}

export async function writeSettings(
  ctx: ServiceContext,
  { documentId, patch, place }: { documentId: string; patch: Partial<DocumentSettings>; place: EntryPlace },
): Promise<DocumentSettings> {
  const t = ctx.now;
  const log = settingsEntryQuery(ctx, { documentId, patch, place });
  const results = await ctx.db.batch([
    ...log,
    ctx.db
      .insert(documentSettings)
      .values({
        documentId,
        listTemplateId: patch.listTemplateId ?? "",
        importedTermId: patch.importedTermId ?? "",
        updatedAt: t,
      })
      .onConflictDoUpdate({
        target: documentSettings.documentId,
        set: {
          ...(patch.listTemplateId !== undefined && { listTemplateId: patch.listTemplateId }),
          ...(patch.importedTermId !== undefined && { importedTermId: patch.importedTermId }),
          updatedAt: t,
        },
      })
      .returning(),
  ] as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  const [row] = results[log.length] as (typeof documentSettings.$inferSelect)[];
  return { listTemplateId: row!.listTemplateId, importedTermId: row!.importedTermId };
}
