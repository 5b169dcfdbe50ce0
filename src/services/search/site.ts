/**
 * Search on the reader site (docs/api-guide.md › Search): the same index and query syntax as GET /search, over one
 * portal's published pages only (the documents its state lists: published, not deleted, DOCUMENT or FOLDER), in one
 * D1 query. Files (EXTERNAL documents) are left out: the site never shows their text.
 */
import { sql } from "drizzle-orm";
import { ApiError } from "../../errors";
import { ftsExpression, MARK_CLOSE, MARK_OPEN, snippetHtml } from "./query";
import { BODY_WEIGHT, TITLE_WEIGHT } from "./search";
import type { ServiceContext } from "../context";

const SITE_SEARCH_LIMIT = 20;

interface SiteHit {
  _id: string;
  title: string;
  /** HTML: escaped text with matches in <mark>. */
  snippet: string;
}

export type SiteSearchResult = { ok: true; hits: SiteHit[] } | { ok: false; message: string };

export async function searchPortal(ctx: ServiceContext, input: { documentIds: readonly string[]; q: string }): Promise<SiteSearchResult> {
  const { documentIds, q } = input;
  let match: string;
  try {
    match = ftsExpression(q);
  } catch (err) {
    if (err instanceof ApiError) return { ok: false, message: err.message };
    throw err;
  }
  if (documentIds.length === 0) return { ok: true, hits: [] };
  try {
    const rows = await ctx.db.all<{ id: string; title: string; snip: string | null }>(sql`
      SELECT e.record_id AS id, e.title AS title, snippet(search_fts, -1, ${MARK_OPEN}, ${MARK_CLOSE}, '…', 16) AS snip
      FROM search_fts JOIN search_entries e ON e.id = search_fts.rowid
      WHERE search_fts MATCH ${match} AND e.kind = 'document' AND e.record_id IN (SELECT value FROM json_each(${JSON.stringify(documentIds)}))
      ORDER BY bm25(search_fts, ${TITLE_WEIGHT}, ${BODY_WEIGHT}, 0), e.id
      LIMIT ${SITE_SEARCH_LIMIT}`);
    return { ok: true, hits: rows.map((r) => ({ _id: r.id, title: r.title, snippet: snippetHtml(r.snip ?? "") })) };
  } catch (err) {
    if (/fts5|unterminated string/i.test(String((err as Error)?.message) + String((err as { cause?: Error })?.cause?.message ?? ""))) {
      return { ok: false, message: "The search could not be read; quote words that contain punctuation" };
    }
    throw err;
  }
}
