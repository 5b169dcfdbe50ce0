/**
 * Documents as Markdown (docs/api-guide.md › Markdown import and export): a `.md` file becomes a new rich-text
 * document, a rich-text document is written out as Markdown, and a folder as a ZIP of Markdown files laid out as
 * its tree. The conversion is ./convert.ts; creating and writing content go through the document and content
 * services, so access, ordering, events and collaborative rooms behave as for any other create and write.
 */
import { strToU8, zipSync, type Zippable } from "fflate";
import { sql } from "drizzle-orm";
import {
  assembleDocumentsAccess,
  checkDocumentAccess,
  documentsAccessStatements,
  documentsAccessStatementsIn,
  type DocumentAccess,
  type DocumentRow,
} from "../../auth/access";
import { documentContents } from "../../db/schema";
import { conflict, unprocessable } from "../../errors";
import { read, type ServiceContext } from "../context";
import { contentObjectKey, firstContentQuery, readContentsOf } from "../content/store";
import { contentEntryQuery, entryBy } from "../changes/recordLog";
import { commitNewDocument, placeNewDocument } from "../documents/create";
import { documentExists, prepareCreateDocument } from "../documents/mutations";
import { documentDto } from "../documents/serialize";
import { newContentBodyQuery } from "../search/queries";
import { inSubtree, subtreeSql } from "../documents/tree";
import { markdownToBlocks } from "./convert";
import { blocksToMarkdown } from "./toMarkdown";
import { recordReadEvent } from "../audit/log";

/**
 * docs/api-guide.md › Limits: a Markdown file to import is at most 1 MiB (remark reads about 1 MiB of plain text in
 * 4 s on the test machine; 5 MiB held the isolate for 20 s). ./prescan.ts bounds the work within it.
 */
export const MAX_MARKDOWN_BYTES = 1024 * 1024;
/** Documents in one folder export, and the stored content they may add up to (422 beyond). */
export const MAX_ZIP_DOCUMENTS = 2000;
export const MAX_ZIP_CONTENT_BYTES = 64 * 1024 * 1024;

/**
 * POST /document/markdown: the text is converted first (nothing is created for a body that cannot be read), the
 * place is checked as POST /document checks it, the blocks are put in R2, and then the document, its owner grant,
 * its first content version, its search text and a keyed request's answer commit in one D1 batch (commitNewDocument): an import that
 * fails (a parent folder deleted meanwhile: 404) writes nothing, and its R2 object is removed again.
 */
export async function importMarkdownDocument(
  ctx: ServiceContext,
  input: { projectId: string; parentId?: string | null; name: string; markdown: string },
) {
  const blocks = markdownToBlocks(input.markdown);
  const blocksJson = JSON.stringify(blocks);
  const parentId = input.parentId ?? null;
  const { project, order } = await placeNewDocument(ctx, { projectId: input.projectId, parentId });
  const { row, statements } = await prepareCreateDocument(ctx, {
    project,
    document: { parentId, name: input.name, type: "DOCUMENT", order },
  });
  const key = contentObjectKey(row.id);
  await ctx.env.BLOBS.put(key, blocksJson, { httpMetadata: { contentType: "application/json" } });
  const answer = {
    document: documentDto(row, [{ userId: ctx.user.id, role: "owner" }]),
    version: 1,
    blocks: blocks.length,
  };
  const size = new TextEncoder().encode(blocksJson).byteLength;
  try {
    await commitNewDocument(ctx, {
      row,
      statements,
      with: [
        firstContentQuery(ctx, { documentId: row.id, key, size, when: documentExists(row.id) }),
        newContentBodyQuery(ctx.db, row.id, blocksJson),
        ...contentEntryQuery(ctx, { documentId: row.id, key, by: entryBy(ctx, "import") }),
      ],
      answer,
      source: "import",
    });
  } catch (err) {
    await ctx.env.BLOBS.delete(key);
    throw err;
  }
  return answer;
}

function assertRichText(doc: DocumentRow) {
  if (doc.type === "FOLDER") throw conflict("This is a folder: GET /document/{documentId}/export.zip exports it");
  if (doc.type !== "DOCUMENT")
    throw conflict("Only rich-text documents have Markdown; an EXTERNAL document is exported as its file");
}

/**
 * One document as Markdown (docs/api-guide.md › Markdown import and export): read access; access and content metadata
 * in one round trip, the blocks from R2.
 */
export async function exportMarkdownDocument(
  ctx: ServiceContext,
  { documentId }: { documentId: string },
): Promise<{ name: string; markdown: string }> {
  const [docs, wsRoles, docRoles, metas] = await read(ctx, [
    ...documentsAccessStatements(ctx.db, ctx.user.ref, [documentId]),
    ctx.db
      .select({
        documentId: documentContents.documentId,
        version: documentContents.version,
        r2Key: documentContents.r2Key,
        size: documentContents.size,
      })
      .from(documentContents)
      .where(sql`${documentContents.documentId} = ${documentId}`),
  ]);
  const { doc } = checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(documentId), "read");
  assertRichText(doc);
  recordReadEvent(ctx, "export.markdown", doc);
  const contents = await readContentsOf(ctx, { documentIds: [documentId], metas });
  return { name: doc.name, markdown: blocksToMarkdown(contents.get(documentId)?.blocks) };
}

/** A file or folder name safe on every common file system; never empty. */
export function safeFileName(name: string): string {
  const cleaned = name
    .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]/g, "_")
    .trim()
    .replace(/[. ]+$/, "")
    .slice(0, 120);
  return cleaned === "" || cleaned === "." || cleaned === ".." ? "Untitled" : cleaned;
}

/** `name`, or `name (2)`, `name (3)`, … whichever is not yet taken in its folder (compared case-insensitively). */
function uniqueIn(taken: Set<string>, name: string, extension: string): string {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? `${name}${extension}` : `${name} (${n})${extension}`;
    if (!taken.has(candidate.toLowerCase())) {
      taken.add(candidate.toLowerCase());
      return candidate;
    }
  }
}

/**
 * GET /document/{folderId}/export.zip: the folder's readable live documents as Markdown files, its subfolders as
 * directories (empty ones too), siblings in their `order`. Access of the whole subtree and its content metadata
 * ride in one D1 round trip; the blocks come from R2. EXTERNAL documents are not included (they are files, not
 * rich text); documents the caller cannot read are left out as if absent.
 */
// eslint-disable-next-line max-lines-per-function -- the folder walk, its bounds and the archive written as it goes
export async function exportFolderZip(
  ctx: ServiceContext,
  { folderId }: { folderId: string },
): Promise<{ name: string; zip: Uint8Array; documents: number }> {
  const subtree = sql`${subtreeSql(folderId)} SELECT id FROM sub`;
  const [docs, wsRoles, docRoles, metas] = await read(ctx, [
    ...documentsAccessStatementsIn(ctx.db, ctx.user.ref, subtree),
    ctx.db
      .select({
        documentId: documentContents.documentId,
        version: documentContents.version,
        r2Key: documentContents.r2Key,
        size: documentContents.size,
      })
      .from(documentContents)
      .where(inSubtree(documentContents.documentId, folderId)),
  ]);
  const access = assembleDocumentsAccess([docs, wsRoles, docRoles]);
  const { doc: folder } = checkDocumentAccess(access.get(folderId), "read");
  if (folder.type !== "FOLDER")
    throw conflict("Not a folder: a single document is exported by the exportMarkdownDocument operation");
  recordReadEvent(ctx, "export.archive", folder);

  const visible = (a: DocumentAccess | undefined): a is DocumentAccess => !!a && a.canRead && !a.doc.isDeleted;
  const childrenOf = new Map<string, DocumentRow[]>();
  for (const a of access.values()) {
    if (!visible(a) || a.doc.id === folderId || !a.doc.parentId) continue;
    childrenOf.set(a.doc.parentId, [...(childrenOf.get(a.doc.parentId) ?? []), a.doc]);
  }
  // Walk from the folder so only what hangs below readable folders is exported.
  const files: { path: string; id: string }[] = [];
  const dirs: string[] = [];
  const walk = (parentId: string, prefix: string, depth: number) => {
    const taken = new Set<string>();
    const kids = (childrenOf.get(parentId) ?? []).sort(
      (a, b) => a.order - b.order || a.name.localeCompare(b.name) || a.id.localeCompare(b.id),
    );
    for (const d of kids) {
      if (d.type === "FOLDER") {
        const dir = `${prefix}${uniqueIn(taken, safeFileName(d.name), "")}/`;
        dirs.push(dir);
        if (depth < 64) walk(d.id, dir, depth + 1);
      } else if (d.type === "DOCUMENT") {
        files.push({ path: `${prefix}${uniqueIn(taken, safeFileName(d.name), ".md")}`, id: d.id });
      }
    }
  };
  walk(folderId, "", 0);
  if (files.length > MAX_ZIP_DOCUMENTS)
    throw unprocessable(
      `The folder holds ${files.length} documents; a ZIP export takes at most ${MAX_ZIP_DOCUMENTS}: export its subfolders`,
    );
  const wanted = new Set(files.map((f) => f.id));
  const rows = metas.filter((m) => wanted.has(m.documentId));
  const bytes = rows.reduce((n, m) => n + m.size, 0);
  if (bytes > MAX_ZIP_CONTENT_BYTES)
    throw unprocessable(
      `The folder's documents hold ${bytes} bytes of content; a ZIP export takes at most ${MAX_ZIP_CONTENT_BYTES}: export its subfolders`,
    );

  const contents = await readContentsOf(ctx, { documentIds: [...wanted], metas: rows });
  const entries: Zippable = {};
  for (const dir of dirs) entries[dir] = new Uint8Array(0);
  for (const f of files) entries[f.path] = strToU8(blocksToMarkdown(contents.get(f.id)?.blocks));
  // A fixed date: the same folder gives the same bytes, whenever it is exported.
  const zip = zipSync(entries, { level: 6, mtime: new Date(Date.UTC(2000, 0, 1)) });
  return { name: folder.name, zip, documents: files.length };
}
