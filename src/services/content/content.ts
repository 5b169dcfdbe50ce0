/**
 * The content and settings operations of a document (GET/PUT /document/{id}/content, /settings), each costing one
 * D1 round trip to authenticate, check access and read, and one more to write.
 *
 * Content carries a version-derived strong ETag: a version names exactly one stored JSON object, so the tag can be
 * compared (304, If-Match) without reading the blocks, and If-Match means the same as `baseVersion` (docs/api-guide.md › HTTP semantics: retries, caching, replicas).
 */
import { documentUpdatedEvent, emitAfterResponse } from "../events/events";
import { eq } from "drizzle-orm";
import {
  assembleDocumentsAccess,
  checkDocumentAccess,
  documentsAccessStatements,
  type DocumentLevel,
} from "../../auth/access";
import { documentContents, documentSettings } from "../../db/schema";
import { ApiError, preconditionFailed } from "../../errors";
import { versionMatches, type ExpectedVersion } from "../../lib/etag";
import { read, type ServiceContext } from "../context";
import {
  EMPTY_SETTINGS,
  readCurrentText,
  writeContent,
  writeSettings,
  type ContentMeta,
  type DocumentSettings,
} from "./store";
import { roomOf, roomStateStatement, unwrapRoom } from "../collab/rooms";
import { assertContentDepth } from "./depth";
import { entryBy } from "../changes/recordLog";

/** The strong ETag of a document's content at `version` (version 0: never written, blocks `[]`). */
export function contentEtag(version: number): string {
  return `"content-v${version}"`;
}

/** The document's access at `level`, its current content metadata and whether it has a collaborative room, in one batch. */
async function accessWithContentMetaAndRoom(ctx: ServiceContext, documentId: string, level: DocumentLevel) {
  const [docs, wsRoles, docRoles, metas, rooms] = await read(ctx, [
    ...documentsAccessStatements(ctx.db, ctx.user.ref, [documentId]),
    ctx.db
      .select({ version: documentContents.version, r2Key: documentContents.r2Key, size: documentContents.size })
      .from(documentContents)
      .where(eq(documentContents.documentId, documentId)),
    roomStateStatement(ctx.db, documentId),
  ]);
  const { doc } = checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(documentId), level);
  return { doc, meta: (metas[0] as ContentMeta | undefined) ?? null, hasRoom: rooms.length > 0 };
}

export interface ContentRead {
  version: number;
  etag: string;
  /** The stored blocks (never parsed) with the version they belong to; reads R2 only when called. */
  blocks(): Promise<{ version: number; etag: string; blocksJson: string }>;
}

/** GET /document/{id}/content: read access; one D1 round trip, the blocks from R2 only when they are sent. */
export async function getContent(ctx: ServiceContext, { documentId }: { documentId: string }): Promise<ContentRead> {
  const { meta } = await accessWithContentMetaAndRoom(ctx, documentId, "read");
  const version = meta?.version ?? 0;
  return {
    version,
    etag: contentEtag(version),
    async blocks() {
      const current = await readCurrentText(ctx, { documentId, meta });
      return { ...current, etag: contentEtag(current.version) };
    },
  };
}

export interface PutContentInput {
  documentId: string;
  /** The blocks as sent (any JSON within the nesting bound); stored as their JSON text. */
  blocks: unknown;
  baseVersion?: number;
  /** The version the write expects (If-Match, read in src/http/conditional.ts): the content must be at it (412 otherwise, nothing written). */
  expected?: ExpectedVersion;
}

/**
 * PUT /document/{id}/content: edit access. `baseVersion` (409 when stale) and `If-Match` (412 when it does not
 * name the current version) both make the write conditional on the version; of two concurrent conditional writes
 * exactly one lands. Two D1 round trips (access and version in one, the write in the other).
 *
 * A document whose collaborative room holds state (docs/api-guide.md › Automations, published portals, collaborative editing) is written through the room: it writes its pending
 * live edits back first (so a `baseVersion` older than them is a 409), stores the blocks, and applies them to the
 * shared document as one Yjs transaction that connected editors receive.
 */
export async function putContent(
  ctx: ServiceContext,
  input: PutContentInput,
): Promise<{ version: number; etag: string }> {
  // Before anything is read or serialized: content nested past the bound is never stored (docs/api-guide.md › Limits).
  assertContentDepth(input.blocks);
  const blocksJson = JSON.stringify(input.blocks);
  const { doc, meta, hasRoom } = await accessWithContentMetaAndRoom(ctx, input.documentId, "edit");
  let baseVersion = input.baseVersion;
  if (input.expected !== undefined) {
    const current = meta?.version ?? 0;
    if (!versionMatches(input.expected, contentEtag(current))) throw preconditionFailed();
    if (baseVersion !== undefined && baseVersion !== current) {
      throw new ApiError(
        "ConflictError",
        `The content changed: baseVersion ${baseVersion} is not the current version ${current}`,
      );
    }
    baseVersion = current;
  }
  try {
    const write = { documentId: input.documentId, userId: ctx.user.id, blocksJson, baseVersion, by: entryBy(ctx) };
    const { version } = hasRoom
      ? (unwrapRoom(await roomOf(ctx.env, input.documentId).replaceBlocks({ ...write, store: true })) as {
          version: number;
        })
      : await writeContent(ctx, write);
    emitAfterResponse(ctx, [documentUpdatedEvent(doc)]);
    return { version, etag: contentEtag(version) };
  } catch (err) {
    // The version named by If-Match was replaced between the check and the write: a failed precondition, not a 409.
    if (
      input.expected !== undefined &&
      input.baseVersion === undefined &&
      err instanceof ApiError &&
      err.code === "ConflictError"
    )
      throw preconditionFailed();
    throw err;
  }
}

/** GET /document/{id}/settings: read access, one D1 round trip. */
export async function getDocumentSettings(
  ctx: ServiceContext,
  { documentId }: { documentId: string },
): Promise<DocumentSettings> {
  const [docs, wsRoles, docRoles, rows] = await read(ctx, [
    ...documentsAccessStatements(ctx.db, ctx.user.ref, [documentId]),
    ctx.db.select().from(documentSettings).where(eq(documentSettings.documentId, documentId)),
  ]);
  checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(documentId), "read");
  const row = rows[0];
  return row ? { listTemplateId: row.listTemplateId, importedTermId: row.importedTermId } : { ...EMPTY_SETTINGS };
}

/** PUT /document/{id}/settings: edit access; members left out keep their value (null or "" clears one). */
export async function updateDocumentSettings(
  ctx: ServiceContext,
  {
    documentId,
    patch,
  }: { documentId: string; patch: { listTemplateId?: string | null; importedTermId?: string | null } },
): Promise<DocumentSettings> {
  const [docs, wsRoles, docRoles] = await read(ctx, documentsAccessStatements(ctx.db, ctx.user.ref, [documentId]));
  const { doc } = checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(documentId), "edit");
  const members = {
    ...(patch.listTemplateId !== undefined && { listTemplateId: patch.listTemplateId ?? "" }),
    ...(patch.importedTermId !== undefined && { importedTermId: patch.importedTermId ?? "" }),
  };
  return writeSettings(ctx, {
    documentId,
    patch: members,
    place: { workspaceId: doc.workspaceId, projectId: doc.projectId },
  });
}
