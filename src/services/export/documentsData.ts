/**
 * E5: everything a client needs to export documents, gathered with a fixed number of D1 round trips however
 * many documents are listed (every read below is one query over all of them, or one batch).
 *
 * The answer is bounded and streamed (docs/api-guide.md › Files, export and media): ids are distinct and at most 100, its size is
 * known before the first byte is sent (content sizes from D1, resolved clause blocks measured once each), an answer
 * past 64 MiB is 422, and each document's content is piped from R2 into the response rather than parsed and
 * stringified with the rest: a block referenced by many clauses is held once, however many times it is written.
 */
import { and, asc, eq } from "drizzle-orm";
import { clauseReferences } from "../../db/schema";
import {
  assembleDocumentsAccess,
  checkReadableDocuments,
  documentsAccess,
  documentsAccessStatements,
  readableProjectIds,
} from "../../auth/access";
import { inJson } from "../../db/sql";
import { ApiError, unprocessable } from "../../errors";
import { read, type ServiceContext } from "../context";
import {
  contentMetasQuery,
  EMPTY_BLOCKS_JSON,
  readContentMeta,
  readCurrentText,
  settingsOf,
  settingsQuery,
  type ContentMeta,
} from "../content/store";
import { mapConcurrent } from "../../lib/concurrency";
import { clauseReferenceDto } from "../references/clauseReferences";
import { tableReferenceDto, tableReferencesOfDocuments } from "../references/tableReferences";
import { readRowsAcrossTables } from "../tables/rowReads";
import { recordAuditEvent } from "../audit/log";

type Block = Record<string, unknown>;

/** `hierarchy` is `/`-separated; its first two parts name the referenced document and block (docs/api-guide.md › Content, snapshots and references). */
function parseHierarchy(hierarchy: string): { documentId: string; blockId: string } | null {
  const [documentId, blockId] = hierarchy.split("/");
  return documentId && blockId ? { documentId, blockId } : null;
}

/** Depth-first search for the block with this id (`id`, `_id` or `blockId`), nested children included. */
function findBlock(blocks: unknown, blockId: string, depth = 0): Block | null {
  if (depth > 64 || blocks === null || typeof blocks !== "object") return null;
  if (Array.isArray(blocks)) {
    for (const b of blocks) {
      const hit = findBlock(b, blockId, depth + 1);
      if (hit) return hit;
    }
    return null;
  }
  const block = blocks as Block;
  if (block.id === blockId || block._id === blockId || block.blockId === blockId) return block;
  for (const value of Object.values(block)) {
    if (value && typeof value === "object") {
      const hit = findBlock(value, blockId, depth + 1);
      if (hit) return hit;
    }
  }
  return null;
}

/** docs/api-guide.md-level bounds of E5, documented in docs/api-guide.md. */
export const MAX_EXPORT_DOCUMENTS = 100;
export const MAX_EXPORT_BYTES = 64 * 1024 * 1024;

const encoder = new TextEncoder();
const byteLength = (s: string) => encoder.encode(s).byteLength;

function tooLarge(): ApiError {
  return unprocessable(`The export would pass ${MAX_EXPORT_BYTES / (1024 * 1024)} MiB; ask for fewer documents`);
}

/**
 * One piece of the answer: short text written as is, a resolved block's JSON (shared by every clause that resolves
 * to it, its size measured once), or a document's stored content piped from R2.
 */
type SharedText = { json: string; bytes: number };
type Piece = string | SharedText | { content: string; meta: ContentMeta | undefined };

/**
 * `JSON.stringify(value)` with one more member whose value is given as pieces of serialized JSON text: a shared
 * block's text is pushed by reference, never copied per use.
 */
function withMember(value: Record<string, unknown>, name: string, json: readonly Piece[]): Piece[] {
  const text = JSON.stringify(value);
  return [`${text.length > 2 ? `${text.slice(0, -1)},` : "{"}${JSON.stringify(name)}:`, ...json, "}"];
}

/**
 * E5: every listed document must be readable and in `projectId` (else 403, nothing returned). Authentication,
 * access, clause references, content metadata and settings come in one D1 batch, the table references in a second;
 * resolving references (their target documents' access and content, the referenced rows) adds reads only when
 * there are references. Answers the stream of `{ "exportData": [...] }`, or throws before anything is sent.
 */
export async function getDocumentsData(
  ctx: ServiceContext,
  input: { projectId: string; documentIds: readonly string[] },
): Promise<ReadableStream<Uint8Array>> {
  const { documentIds } = input;
  const ids = [...new Set(documentIds)];
  if (ids.length !== documentIds.length) throw new ApiError("ValidationError", "documentIds must be distinct");
  if (ids.length > MAX_EXPORT_DOCUMENTS)
    throw new ApiError("ValidationError", `At most ${MAX_EXPORT_DOCUMENTS} documentIds`);
  const { clauses, metas, settingRows } = await readExportedDocuments(ctx, input.projectId, documentIds, ids);
  recordAuditEvent(ctx, { kind: "export.documents", recordId: input.projectId, projectId: input.projectId });
  // Size before work: the stored contents alone may already be too much.
  const total = ids.reduce((sum, id) => sum + (metas.get(id)?.size ?? EMPTY_BLOCKS_JSON.length), 0);
  if (total > MAX_EXPORT_BYTES) throw tooLarge();

  const settings = settingsOf(ids, settingRows);
  const references = await resolveReferences(ctx, ids, clauses);
  return streamPieces(ctx, answerPieces({ documentIds, clauses, metas, settings, ...references }, total));
}

type ClauseRow = typeof clauseReferences.$inferSelect;

/**
 * The one D1 batch: the documents' access (each must be readable and in `projectId`, else 403), their clause
 * references, content metadata and settings.
 */
async function readExportedDocuments(
  ctx: ServiceContext,
  projectId: string,
  documentIds: readonly string[],
  ids: string[],
) {
  const { db } = ctx;
  const [docs, wsRoles, docRoles, clauses, contentMetas, settingRows] = await read(ctx, [
    ...documentsAccessStatements(db, ctx.user.ref, ids),
    db
      .select()
      .from(clauseReferences)
      .where(and(inJson(clauseReferences.documentId, ids), eq(clauseReferences.isDeleted, false)))
      .orderBy(asc(clauseReferences.createdAt), asc(clauseReferences.id)),
    contentMetasQuery(db, ids),
    settingsQuery(db, ids),
  ]);
  const access = checkReadableDocuments(assembleDocumentsAccess([docs, wsRoles, docRoles]), documentIds);
  for (const id of documentIds) {
    if (access.get(id)!.doc.projectId !== projectId)
      throw new ApiError("ForbiddenError", `Document ${id} is not in project ${projectId}`);
  }
  const metas = new Map<string, ContentMeta>(contentMetas.map(({ documentId, ...meta }) => [documentId, meta]));
  return { clauses, metas, settingRows };
}

/**
 * The references the caller may see, resolved: clause targets only where the caller can read the referenced
 * document, table references only where it can read the table's project, with the blocks and rows they name.
 */
async function resolveReferences(ctx: ServiceContext, ids: string[], clauses: ClauseRow[]) {
  const { db, user } = ctx;
  const tableRefs = await tableReferencesOfDocuments(ctx, ids);

  // Clause targets: resolved only where the caller can read the referenced document.
  const targets = new Map(clauses.map((c) => [c.id, parseHierarchy(c.hierarchy)]));
  const targetDocIds = [...new Set([...targets.values()].flatMap((t) => (t ? [t.documentId] : [])))];
  const [targetAccess, readableProjects] = await Promise.all([
    documentsAccess(db, user._id, targetDocIds),
    readableProjectIds(db, user._id, [...new Set(tableRefs.map((r) => r.tableProjectId))]),
  ]);
  const readableTargets = new Set(
    targetDocIds.filter((id) => {
      const a = targetAccess.get(id);
      return a && a.canRead && !a.doc.isDeleted;
    }),
  );
  const visibleRefs = tableRefs.filter((r) => readableProjects.has(r.tableProjectId));
  const referencedRowIds = visibleRefs
    .flatMap((r) => [r.ref.relatedRowId, r.ref.rowId, ...(r.ref.oneToManyInstanceIds ?? [])])
    .filter((x): x is string => !!x);
  const [resolvedBlocks, rowsById] = await Promise.all([
    resolveClauseBlocks(ctx, clauses, targets, readableTargets),
    readRowsAcrossTables(ctx, referencedRowIds),
  ]);
  return { targets, visibleRefs, resolvedBlocks, rowsById };
}

/** Everything the answer is made of, once every read is done. */
type ExportParts = {
  documentIds: readonly string[];
  clauses: ClauseRow[];
  metas: Map<string, ContentMeta>;
  settings: ReturnType<typeof settingsOf>;
} & Awaited<ReturnType<typeof resolveReferences>>;

/**
 * The answer's pieces in order. Every piece but the contents is text now; its size is summed as it is made (a shared
 * block counted once per use, never copied) onto `total` (the contents' sizes), so past the bound this stops with 422
 * before more is built, and before the answer starts.
 */
function answerPieces(parts: ExportParts, total: number): Piece[] {
  const { documentIds, clauses, metas, settings, targets, visibleRefs, resolvedBlocks, rowsById } = parts;
  const pieces: Piece[] = [];
  const push = (...more: Piece[]) => {
    for (const piece of more) {
      if (typeof piece === "string") total += byteLength(piece);
      else if ("json" in piece) total += piece.bytes;
      if (total > MAX_EXPORT_BYTES) throw tooLarge();
      pieces.push(piece);
    }
  };
  push('{"exportData":[');
  documentIds.forEach((documentId, index) => {
    const docRefs = visibleRefs.filter((r) => r.ref.documentId === documentId);
    const rowIds = new Set(
      docRefs
        .flatMap((r) => [r.ref.relatedRowId, r.ref.rowId, ...(r.ref.oneToManyInstanceIds ?? [])])
        .filter((x): x is string => !!x),
    );
    const tables = {
      // Only rows of the referencing table's project: that is what the reader was shown to be able to read.
      referenceRow: [...rowIds].flatMap((id) => {
        const row = rowsById.get(id);
        return row && docRefs.some((r) => r.tableProjectId === row.projectId) ? [row] : [];
      }),
      references: docRefs.map(tableReferenceDto),
    };
    push(`${index ? "," : ""}{"documentId":${JSON.stringify(documentId)},"references":{"clauses":[`);
    clauses
      .filter((c) => c.documentId === documentId)
      .forEach((c, i) => {
        const target = targets.get(c.id);
        const block = target ? resolvedBlocks.get(`${target.documentId}/${target.blockId}`) : undefined;
        const resolved =
          target && block
            ? withMember({ documentId: target.documentId, blockId: target.blockId }, "block", [block])
            : ["null"];
        if (i) push(",");
        push(...withMember(clauseReferenceDto(c), "resolved", resolved));
      });
    push(
      `],"tables":${JSON.stringify(tables)}},"settings":${JSON.stringify(settings.get(documentId) ?? { listTemplateId: "", importedTermId: "" })},"blocks":`,
    );
    // The content's size was counted at the start, from D1.
    pieces.push({ content: documentId, meta: metas.get(documentId) });
    push("}");
  });
  push("]}");
  return pieces;
}

/**
 * The JSON text and size of every block that a clause resolves to, each read once: target documents are read one
 * or two at a time and dropped once their referenced blocks are taken out. Stops with 422 as soon as the distinct
 * blocks alone pass the bound (each is written at least once).
 */
async function resolveClauseBlocks(
  ctx: ServiceContext,
  clauses: readonly { hierarchy: string }[],
  targets: ReadonlyMap<string, { documentId: string; blockId: string } | null>,
  readableTargets: ReadonlySet<string>,
): Promise<Map<string, SharedText>> {
  const wanted = new Map<string, Set<string>>();
  for (const t of targets.values()) {
    if (!t || !readableTargets.has(t.documentId)) continue;
    let set = wanted.get(t.documentId);
    if (!set) wanted.set(t.documentId, (set = new Set()));
    set.add(t.blockId);
  }
  const out = new Map<string, SharedText>();
  if (clauses.length === 0 || wanted.size === 0) return out;
  // One D1 query for every target's content metadata, however many targets there are.
  const metas = new Map(
    (await contentMetasQuery(ctx.db, [...wanted.keys()])).map(({ documentId, ...meta }) => [documentId, meta]),
  );
  let held = 0;
  await mapConcurrent([...wanted], 2, async ([documentId, blockIds]) => {
    const { blocksJson } = await readCurrentText(ctx, { documentId, meta: metas.get(documentId) ?? null });
    const blocks: unknown = JSON.parse(blocksJson);
    for (const blockId of blockIds) {
      const block = findBlock(blocks, blockId);
      if (!block) continue;
      const json = JSON.stringify(block);
      const bytes = byteLength(json);
      held += bytes;
      if (held > MAX_EXPORT_BYTES) throw tooLarge();
      out.set(`${documentId}/${blockId}`, { json, bytes });
    }
  });
  return out;
}

/** Writes the pieces in order, piping each document's stored content from R2 (never parsed, never whole in a string). */
function streamPieces(ctx: ServiceContext, pieces: Piece[]): ReadableStream<Uint8Array> {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const pump = async () => {
    const writer = writable.getWriter();
    try {
      for (const piece of pieces) {
        if (typeof piece === "string" || "json" in piece) {
          await writer.write(encoder.encode(typeof piece === "string" ? piece : piece.json));
          continue;
        }
        const body = await openContent(ctx, piece.content, piece.meta ?? null);
        if (typeof body === "string") {
          await writer.write(encoder.encode(body));
          continue;
        }
        const reader = body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          await writer.write(value);
        }
      }
      await writer.close();
    } catch (err) {
      await writer.abort(err);
    }
  };
  // The response is returned before the pump finishes; its backpressure paces the R2 reads.
  void pump();
  return readable;
}

/**
 * The current content's object body, following a concurrent write to its new key as `readCurrentText` does; a
 * document never written is `[]`.
 */
async function openContent(
  ctx: ServiceContext,
  documentId: string,
  meta: ContentMeta | null,
): Promise<ReadableStream<Uint8Array> | string> {
  for (let attempt = 0; attempt < 5 && meta; attempt++) {
    const obj = await ctx.env.BLOBS.get(meta.r2Key);
    if (obj) return obj.body;
    meta = await readContentMeta(ctx, documentId);
  }
  if (!meta) return EMPTY_BLOCKS_JSON;
  throw new Error(`content object ${meta.r2Key} of ${documentId} is missing`);
}
