/**
 * How search hits are ranked (docs/api-guide.md › Search › Ranking): from the matched record alone.
 *
 * SQLite's bm25() weighs each word by how many records of the whole database hold it — every tenant's records on
 * the same shard database — so the order of two of your own records told you what others wrote. The score here
 * reads nothing but the record it scores: how many times the query's words occur in its title and in its body
 * (counted through FTS5's highlight(), which marks each match inside one record), saturated as BM25 saturates
 * them, and the body's length against a fixed reference length instead of the database's average.
 *
 *   score = TITLE_WEIGHT · t/(t + 1) + BODY_WEIGHT · b/(b + K1 · (1 − B + B · bodyLength/REFERENCE_LENGTH))
 *
 * where t and b are the matches in the title and in the body. Higher is better; ties go to the older entry.
 *
 * Cost: scoring reads each candidate's text, so a query may score at most MAX_CANDIDATES records (counted among
 * the records the caller can read: the candidates are already confined to the caller's scope words). Past that it
 * is 422 "too broad" instead of holding the database for others.
 */
import { sql, type SQL } from "drizzle-orm";
import { ApiError } from "../../errors";

/** A match in a record's title (document name, row identifier) weighs ten times one in its body. */
export const TITLE_WEIGHT = 10;
export const BODY_WEIGHT = 1;
const K1 = 1.2;
const B = 0.75;
/** The body length (characters) at which a body's matches count as they are: shorter bodies count more. */
const REFERENCE_LENGTH = 2000;
/** Most records one query may score, per shard database. */
export const MAX_CANDIDATES = 5000;

/**
 * The CTEs ending in `scored(rid, score)` over the entries matching `match` (an SQL expression of the MATCH text),
 * at most MAX_CANDIDATES + 1 of them: one more than the budget tells the caller the query was too broad. Each
 * record's matches are counted once (`counted` is materialized, so the score's formula does not run highlight()
 * again for every use of a count).
 */
export function scoredCte(match: SQL): SQL {
  const lengthFactor = sql.raw(`${K1} * (${1 - B} + ${B} * bl / ${REFERENCE_LENGTH}.0)`);
  return sql`counted(rid, t, b, bl) AS MATERIALIZED (
        SELECT rowid,
          length(highlight(search_fts, 0, char(1), '')) - length(search_fts.title),
          length(highlight(search_fts, 1, char(1), '')) - length(search_fts.body),
          length(search_fts.body)
        FROM search_fts WHERE search_fts MATCH ${match}
        LIMIT ${MAX_CANDIDATES + 1}),
      scored(rid, score) AS (
        SELECT rid, ${TITLE_WEIGHT} * t * 1.0 / (t + 1) + ${BODY_WEIGHT} * b * 1.0 / (b + ${lengthFactor}) FROM counted)`;
}

/** True when the CTE scored more than the budget: the caller is told to narrow the query. */
export const tooBroadSql = sql`(SELECT count(*) FROM counted) > ${MAX_CANDIDATES}`;

export function tooBroad(): ApiError {
  return new ApiError(
    "UnprocessableEntityError",
    `The search is too broad: it matches more than ${MAX_CANDIDATES} records. Add words, or narrow it with projectId or type`,
  );
}

/** Scores as answered: four decimals, enough to order and compare them. */
export function roundScore(score: number): number {
  return Math.round(score * 10_000) / 10_000;
}

/** Best first; equal scores in entry order (the ranking every search answers in). */
export function byRank(a: { score: number; rid: number }, b: { score: number; rid: number }): number {
  return b.score - a.score || a.rid - b.rid;
}
