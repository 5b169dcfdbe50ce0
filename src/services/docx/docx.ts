/**
 * The DOCX operations (create, new version, E21 export, E18 mark-seeded): authentication, access and whatever the
 * operation needs to decide read in one batch; a write adds one more. Raw bodies arrive as plain values (declared
 * length and stream; src/http/upload.ts checked the headers).
 */
import { desc, eq } from "drizzle-orm";
import { assembleDocumentsAccess, checkDocumentAccess, documentsAccessStatements } from "../../auth/access";
import { docxVersions } from "../../db/schema";
import { ApiError, notFound } from "../../errors";
import { verifiedDocxProblem } from "../../lib/docx";
import { hasBody } from "../../lib/r2";
import { read, type ServiceContext } from "../context";
import { prepareCreateDocument } from "../documents/mutations";
import { commitNewDocument, placeNewDocument } from "../documents/create";
import { docxEntryQuery, entryBy } from "../changes/recordLog";
import { documentDto } from "../documents/serialize";
import { readExactly } from "../media/upload";
import { docxBodyQuery } from "../search/queries";
import {
  addDocxVersion,
  checkDocxBytes,
  docxExternal,
  firstDocxVersion,
  inflationChecked,
  putDocxBlob,
  requireDocx,
  markSeeded,
} from "./store";
import { recordReadEvent } from "../audit/log";

export interface RawBody {
  length: number;
  body: ReadableStream<Uint8Array> | null;
}

/** POST /document/docx: an EXTERNAL DOCX document from raw bytes. Two D1 round trips. */
export async function createDocx(
  ctx: ServiceContext,
  input: { projectId: string; name: string; parentId?: string; upload: RawBody },
) {
  const parentId = input.parentId ?? null;
  const { project, order } = await placeNewDocument(ctx, { projectId: input.projectId, parentId });
  const bytes = await readExactly(input.upload.body, input.upload.length);
  await checkDocxBytes(bytes);

  const documentId = ctx.ids.beside(project.id);
  const blob = await putDocxBlob(ctx.env.BLOBS, documentId, bytes);
  try {
    const { row, statements } = await prepareCreateDocument(ctx, {
      project,
      document: {
        id: documentId,
        parentId,
        name: input.name,
        type: "EXTERNAL",
        external: docxExternal(documentId, blob.blobId),
        order,
      },
    });
    const dto = documentDto(row, [{ userId: ctx.user.id, role: "owner" }]);
    // The document, its first version and a keyed request's answer in one batch (commitNewDocument).
    await commitNewDocument(ctx, {
      row,
      statements,
      with: [
        firstDocxVersion(ctx, { documentId, blob }),
        docxBodyQuery(ctx.db, documentId, blob.r2Key, bytes),
        ...docxEntryQuery(ctx, { documentId, r2Key: blob.r2Key, by: entryBy(ctx, "import") }),
      ],
      answer: dto,
      source: "import",
    });
    return dto;
  } catch (err) {
    await ctx.env.BLOBS.delete(blob.r2Key);
    throw err;
  }
}

async function docxAccess(ctx: ServiceContext, documentId: string, level: "read" | "edit") {
  const [docs, wsRoles, docRoles] = await read(ctx, documentsAccessStatements(ctx.db, ctx.user.ref, [documentId]));
  return checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(documentId), level);
}

/** PUT /document/docx/{id}: a new newest version (edit access; 409 when not an EXTERNAL DOCX). Two D1 round trips. */
export async function putDocxVersion(
  ctx: ServiceContext,
  { documentId, upload }: { documentId: string; upload: RawBody },
) {
  const { doc } = await docxAccess(ctx, documentId, "edit");
  requireDocx(doc);
  const bytes = await readExactly(upload.body, upload.length);
  await checkDocxBytes(bytes);
  const blob = await putDocxBlob(ctx.env.BLOBS, documentId, bytes);
  try {
    const version = await addDocxVersion(ctx, { documentId, blob, bytes });
    return { documentId, version, size: blob.size, etag: blob.etag };
  } catch (err) {
    await ctx.env.BLOBS.delete(blob.r2Key);
    throw err;
  }
}

/** E18: stamps `seededAt` on the current DOCX blob once (read access). Two D1 round trips. */
export async function markDocxSeeded(ctx: ServiceContext, { documentId }: { documentId: string }): Promise<number> {
  const { doc } = await docxAccess(ctx, documentId, "read");
  return markSeeded(ctx, doc);
}

export type DocxExport =
  | { notModified: true; etag: string }
  | { notModified: false; etag: string; size: number; body: ReadableStream | Uint8Array; documentName: string };

/**
 * E21: the newest DOCX blob (read access; 409 when not an EXTERNAL DOCX). One D1 round trip; R2 evaluates the
 * client's conditions (`onlyIf`, If-None-Match) against the blob's own ETag. A blob stored since uploads are
 * inflated and checked streams straight from R2; one stored before (no INFLATION_CHECKED metadata) is read and
 * checked the same way first, and 422 if its data disagrees with its headers (docs/security-review.md, finding 8).
 */
export async function exportDocx(
  ctx: ServiceContext,
  { documentId, onlyIf }: { documentId: string; onlyIf?: Headers | R2Conditional },
): Promise<DocxExport> {
  const [docs, wsRoles, docRoles, versions] = await read(ctx, [
    ...documentsAccessStatements(ctx.db, ctx.user.ref, [documentId]),
    ctx.db
      .select()
      .from(docxVersions)
      .where(eq(docxVersions.documentId, documentId))
      .orderBy(desc(docxVersions.version))
      .limit(1),
  ]);
  const { doc } = checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(documentId), "read");
  requireDocx(doc);
  recordReadEvent(ctx, "export.docx", doc);
  const version = versions[0];
  if (!version) throw notFound("DOCX version");
  const obj: R2Object | R2ObjectBody | null = await ctx.env.BLOBS.get(version.r2Key, { onlyIf });
  if (!obj) throw notFound("DOCX blob");
  if (!hasBody(obj)) return { notModified: true, etag: obj.httpEtag };
  if (inflationChecked(obj))
    return { notModified: false, etag: obj.httpEtag, size: obj.size, body: obj.body, documentName: doc.name };
  const bytes = new Uint8Array(await obj.arrayBuffer());
  const problem = await verifiedDocxProblem(bytes);
  if (problem)
    throw new ApiError(
      "UnprocessableEntityError",
      `The stored DOCX is not served: ${problem.reason}. Store a new version.`,
    );
  return { notModified: false, etag: obj.httpEtag, size: obj.size, body: bytes, documentName: doc.name };
}
