/**
 * Rich-text content of documents: blocks as JSON in R2 (one immutable object per write), version and size in D1.
 *
 * A write puts its object under a fresh key first, then bumps the version with a conditional D1 statement
 * (`WHERE version = <seen>`, or insert-if-absent for version 0). Of two writers that saw the same version exactly
 * one changes a row; the loser deletes its own object, so it leaves nothing visible. The object a write replaces is
 * deleted unless a snapshot still points at it (snapshots share the current object instead of copying it).
 */
import { d1Of } from "../../db/d1";
import { eq } from "drizzle-orm";
import { documentContents, documentSettings } from "../../db/schema";
import { inJson } from "../../db/sql";
import type { Db } from "../../env";
import { conflict } from "../../errors";
import { newId, now } from "../../lib/ids";
import { mapConcurrent } from "../../lib/concurrency";

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
/** Writes without a baseVersion retry the conditional bump this often before answering 409. */
const UNCONDITIONAL_ATTEMPTS = 5;

export const EMPTY_BLOCKS_JSON = "[]";

export function contentObjectKey(documentId: string) {
  return `content/${documentId}/${newId()}.json`;
}

export async function readContentMeta(db: Db, documentId: string): Promise<ContentMeta | null> {
  const [row] = await db
    .select({ version: documentContents.version, r2Key: documentContents.r2Key, size: documentContents.size })
    .from(documentContents)
    .where(eq(documentContents.documentId, documentId));
  return row ?? null;
}

async function readObjectText(r2: R2Bucket, key: string): Promise<string> {
  const obj = await r2.get(key);
  // Keys are deleted only once nothing points at them, so a missing object is a bug or a lost race with a delete.
  if (!obj) throw new Error(`content object ${key} is missing`);
  return obj.text();
}

/** The blocks of one document as the JSON text stored for them (never parsed), with its version. */
export async function readContentJson(db: Db, r2: R2Bucket, documentId: string): Promise<{ version: number; blocksJson: string }> {
  const meta = await readContentMeta(db, documentId);
  if (!meta) return { version: 0, blocksJson: EMPTY_BLOCKS_JSON };
  return { version: meta.version, blocksJson: await readObjectText(r2, meta.r2Key) };
}

/**
 * Contents of many documents in one D1 query plus concurrent R2 reads (E5). Every requested id is in the map;
 * a document never written has version 0 and blocks `[]`. Access is the caller's business.
 */
export async function readContents(db: Db, r2: R2Bucket, documentIds: readonly string[]): Promise<Map<string, DocumentContent>> {
  const ids = [...new Set(documentIds)];
  const out = new Map<string, DocumentContent>();
  if (ids.length === 0) return out;
  const rows = await db
    .select({ documentId: documentContents.documentId, version: documentContents.version, r2Key: documentContents.r2Key })
    .from(documentContents)
    .where(inJson(documentContents.documentId, ids));
  for (const id of ids) out.set(id, { documentId: id, version: 0, blocks: [] });
  await mapConcurrent(rows, R2_CONCURRENCY, async (row) => {
    const text = await readObjectText(r2, row.r2Key);
    out.set(row.documentId, { documentId: row.documentId, version: row.version, blocks: JSON.parse(text) });
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
}

/** Stores a new content version; returns it. */
export async function writeContent(db: Db, r2: R2Bucket, input: WriteContentInput): Promise<{ version: number }> {
  const { documentId, baseVersion } = input;
  let current = await readContentMeta(db, documentId);
  if (baseVersion !== undefined && baseVersion !== (current?.version ?? 0)) throw staleVersion(baseVersion, current?.version ?? 0);

  const key = contentObjectKey(documentId);
  const size = new TextEncoder().encode(input.blocksJson).byteLength;
  await r2.put(key, input.blocksJson, { httpMetadata: { contentType: "application/json" } });
  const d1 = d1Of(db);
  try {
    for (let attempt = 1; ; attempt++) {
      const t = now();
      const bump = current
        ? d1
            .prepare("UPDATE document_contents SET version = version + 1, size = ?, r2_key = ?, updated_by = ?, updated_at = ? WHERE document_id = ? AND version = ?")
            .bind(size, key, input.userId, t, documentId, current.version)
        : d1
            .prepare("INSERT INTO document_contents (document_id, version, size, r2_key, updated_by, updated_at) VALUES (?, 1, ?, ?, ?, ?) ON CONFLICT (document_id) DO NOTHING")
            .bind(documentId, size, key, input.userId, t);
      // Read in the same transaction, after the bump: a snapshot taken before it points at the old key and is seen.
      const statements = current
        ? [bump, d1.prepare("SELECT EXISTS (SELECT 1 FROM snapshots WHERE content_key = ?) AS shared").bind(current.r2Key)]
        : [bump];
      const [bumped, shared] = await d1.batch<{ shared: number }>(statements);
      if (bumped!.meta.changes === 1) {
        if (current && !shared!.results[0]?.shared) await r2.delete(current.r2Key);
        return { version: (current?.version ?? 0) + 1 };
      }
      const seen = current?.version ?? 0;
      current = await readContentMeta(db, documentId);
      if (baseVersion !== undefined || attempt >= UNCONDITIONAL_ATTEMPTS) throw staleVersion(baseVersion ?? seen, current?.version ?? 0);
    }
  } catch (err) {
    await r2.delete(key);
    throw err;
  }
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
export async function readSettings(db: Db, documentIds: readonly string[]): Promise<Map<string, DocumentSettings>> {
  const ids = [...new Set(documentIds)];
  const out = new Map<string, DocumentSettings>(ids.map((id) => [id, { ...EMPTY_SETTINGS }]));
  if (ids.length === 0) return out;
  const rows = await db.select().from(documentSettings).where(inJson(documentSettings.documentId, ids));
  for (const r of rows) out.set(r.documentId, { listTemplateId: r.listTemplateId, importedTermId: r.importedTermId });
  return out;
}

/** Sets the given members (others keep their value) in one upsert; returns the resulting settings. */
export async function writeSettings(db: Db, documentId: string, patch: Partial<DocumentSettings>): Promise<DocumentSettings> {
  const t = now();
  const [row] = await db
    .insert(documentSettings)
    .values({ documentId, listTemplateId: patch.listTemplateId ?? "", importedTermId: patch.importedTermId ?? "", updatedAt: t })
    .onConflictDoUpdate({
      target: documentSettings.documentId,
      set: {
        ...(patch.listTemplateId !== undefined && { listTemplateId: patch.listTemplateId }),
        ...(patch.importedTermId !== undefined && { importedTermId: patch.importedTermId }),
        updatedAt: t,
      },
    })
    .returning();
  return { listTemplateId: row!.listTemplateId, importedTermId: row!.importedTermId };
}
