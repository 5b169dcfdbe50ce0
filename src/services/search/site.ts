/**
 * Search on the reader site (docs/api-guide.md › Search): the same index and query syntax as GET /search, over one
 * portal's published pages only (the documents its state lists: published, not deleted, DOCUMENT or FOLDER), in one
 * D1 query. Files (EXTERNAL documents) are left out: the site never shows their text.
 *
 * The match is confined inside the index to the published pages' own scope words (`d<id>`), so the engine only walks
 * entries of those pages: neither the time of a search nor its order (rank.ts: from each page's own text) depends
 * on the project's unpublished documents or on other tenants.
 */
import { sql } from "drizzle-orm";
import { ApiError } from "../../errors";
import { ftsExpression, isFtsQueryError, MARK_CLOSE, MARK_OPEN, scopeWord, snippetHtml } from "./query";
import { byRank, scoredCte, tooBroad, tooBroadSql } from "./rank";
import type { ServiceContext } from "../context";

const SITE_SEARCH_LIMIT = 20;

interface SiteHit {
  _id: string;
  title: string;
  /** HTML: escaped text with matches in <mark>. */
  snippet: string;
}

export type SiteSearchResult = { ok: true; hits: SiteHit[] } | { ok: false; message: string };

export async function searchPortal(
  ctx: ServiceContext,
  input: { documentIds: readonly string[]; q: string },
): Promise<SiteSearchResult> {
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
    const pagesWords = documentIds.map((id) => scopeWord("d", id)).join(" OR ");
    const scoped = `${match} AND scope : (${pagesWords}) AND scope : ${scopeWord("k", "document")}`;
    const rows = await ctx.db.all<{
      id: string | null;
      title: string;
      snip: string | null;
      score: number;
      rid: number;
    }>(sql`
      WITH ${scoredCte(sql`${scoped}`)},
      top AS MATERIALIZED (SELECT rid, score FROM scored ORDER BY score DESC, rid LIMIT ${SITE_SEARCH_LIMIT})
      SELECT e.record_id AS id, e.title AS title, t.score AS score, t.rid AS rid,
        (SELECT snippet(search_fts, -1, ${MARK_OPEN}, ${MARK_CLOSE}, '…', 16) FROM search_fts WHERE search_fts MATCH ${match} AND rowid = t.rid) AS snip
      FROM top t JOIN search_entries e ON e.id = t.rid
      WHERE e.live = 1 AND e.kind = 'document' AND e.record_id IN (SELECT value FROM json_each(${JSON.stringify(documentIds)}))
      UNION ALL SELECT NULL, '', NULL, 0, 0 WHERE ${tooBroadSql}`);
    if (rows.some((r) => r.id === null)) return { ok: false, message: tooBroad().message };
    // The compound query keeps no order of its own.
    rows.sort(byRank);
    return { ok: true, hits: rows.map((r) => ({ _id: r.id!, title: r.title, snippet: snippetHtml(r.snip ?? "") })) };
  } catch (err) {
    if (isFtsQueryError(err)) {
      return { ok: false, message: "The search could not be read; quote words that contain punctuation" };
    }
    throw err;
  }
}
