/**
 * GET /search (docs/api-guide.md › Search): ranked full-text hits among the records the caller can read.
 *
 * One statement, in the authentication batch (one D1 round trip): the FTS5 match, confined inside the index to
 * the caller's scope words and ranked from each matched record's own text (rank.ts: never from other records),
 * then checked on the page against the read rules of src/auth/access.ts over many records (src/auth/reach.ts: a
 * document through its workspace or a grant on it or an ancestor folder, a row through its project: workspace, or
 * a grant on a live document of the project) — then, for the page only, the folder path
 * (folders the caller can read) and the highlighted snippet. Hidden records never reach the response: no count of
 * all hits, no total, only the page.
 */
import { outsideResources } from "../../auth/tokenLimits";
import { sql, type SQL } from "drizzle-orm";
import { MAX_FOLDER_DEPTH } from "../../auth/access";
import { documentInReach, projectInReach, readerReachCtes } from "../../auth/reach";
import { rawSelect } from "../../db/sql";
import { ApiError, validation } from "../../errors";
import { textFromBase64Url, textToBase64Url } from "../../lib/base64";
import { answersFrom, read, servedHere, type ServiceContext } from "../context";
import { readOnEveryShard } from "../shardReads";
import { ftsExpression, isFtsQueryError, MARK_CLOSE, MARK_OPEN, scopeWord, snippetHtml } from "./query";
import { byRank, roundScore, scoredCte, tooBroad, tooBroadSql } from "./rank";

export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 50;
/** Deepest result a client can page to (offset paging over a ranking). */
const MAX_OFFSET = 1000;
/** Tokens of context a snippet carries around its matches. */
const SNIPPET_TOKENS = 16;

type SearchKind = "document" | "file" | "row" | "comment" | "view";

interface SearchInput {
  q: string;
  workspaceId?: string;
  projectId?: string;
  type?: SearchKind;
  limit?: number;
  cursor?: string;
}

export interface SearchHit {
  _id: string;
  kind: SearchKind;
  title: string;
  workspaceId: string;
  projectId: string;
  tableId: string | null;
  path: {
    project: { _id: string; name: string };
    folders: { _id: string; name: string }[];
    table: { _id: string; name: string } | null;
  };
  /** HTML: the text around the matches, every character escaped, matches in <mark>. */
  snippet: string;
  /** Relevance computed from this record alone (src/services/search/rank.ts); higher is better. */
  score: number;
  /** A comment's target and thread (kind "comment"); null for the other kinds. */
  target: { documentId: string | null; rowId: string | null; threadId: string } | null;
}

interface HitRow {
  rid: number;
  score: number;
  record_id: string;
  kind: SearchKind;
  title: string;
  workspace_id: string;
  project_id: string;
  project_name: string | null;
  table_id: string | null;
  table_name: string | null;
  folders: string;
  snip: string | null;
  document_id: string | null;
  row_id: string | null;
  thread_id: string | null;
}

function decodeSearchCursor(cursor: string): number {
  const m = /^o:(\d{1,4})$/.exec(textFromBase64Url(cursor) ?? "");
  const offset = m ? Number(m[1]) : NaN;
  if (!(offset >= 0 && offset <= MAX_OFFSET)) {
    throw validation("cursor is not a cursor this search returned", [{ path: "cursor", message: "invalid cursor" }]);
  }
  return offset;
}

interface SearchScope {
  workspaceId?: string;
  projectId?: string;
  type?: SearchKind;
}

/**
 * The common table expressions (for a WITH RECURSIVE) that end in `q(m)`: the caller's MATCH expression. `user`
 * names the caller (its SQL reference while authentication rides in the same batch).
 *
 * The caller's reach is written into the MATCH itself (migrations/shard/0000 › search_entries.scope): the user's words AND
 * any of the caller's scope words — `w<id>` per readable workspace, `r<id>` per project holding a live document
 * granted to them, `d<id>` per granted document and every document below a granted folder — plus `k`/`w`/`p` words
 * for the type, workspace and project filters. FTS5 intersects those posting lists, so entries the caller cannot
 * read are never visited, ranked or counted, and the time of a search does not grow with hidden matches. The top
 * of the ranking is cut from the candidates' own scores (rank.ts, LIMIT); entries are read by rowid for that page only, where
 * the access rules in SQL are checked once more as the final guard.
 */
export function scopedMatchCtes(user: SQL, match: string, opts: SearchScope): SQL {
  const narrow: string[] = [];
  if (opts.type) narrow.push(scopeWord("k", opts.type));
  if (opts.workspaceId) narrow.push(scopeWord("w", opts.workspaceId));
  if (opts.projectId) narrow.push(scopeWord("p", opts.projectId));
  const narrowing = narrow.map((w) => ` AND scope : ${w}`).join("");
  return sql`
      ${readerReachCtes(user)},
      reach(word) AS (
        SELECT 'w' || id FROM reach_workspaces
        UNION SELECT 'r' || id FROM reach_projects
        UNION SELECT 'd' || id FROM reach_documents),
      q(m) AS (SELECT ${match} || ' AND scope : (' ||
        COALESCE((SELECT group_concat('"' || replace(word, '"', '""') || '"', ' OR ') FROM reach), '"none"') || ')' || ${narrowing})`;
}

/** The ranked, access-filtered statement (the match of scopedMatchCtes). */
function searchStatementSql(user: SQL, match: string, opts: SearchScope & { limit: number; offset: number }): SQL {
  const filters: SQL[] = [];
  if (opts.type) filters.push(sql`AND e.kind = ${opts.type}`);
  if (opts.workspaceId) filters.push(sql`AND e.workspace_id = ${opts.workspaceId}`);
  if (opts.projectId) filters.push(sql`AND e.project_id = ${opts.projectId}`);
  const depth = MAX_FOLDER_DEPTH + 1;
  const parentReadable = documentInReach(sql`p.workspace_id`, sql`p.id`);
  // The document whose read rule an entry follows (a comment's: its document's), null for the row rule (a row, a
  // comment on a row, a saved view: the project's, as their table's).
  const docOf = sql`(CASE e.kind WHEN 'row' THEN NULL WHEN 'view' THEN NULL WHEN 'comment' THEN e.document_id ELSE e.record_id END)`;
  return sql`
    WITH RECURSIVE
      ${scopedMatchCtes(user, match, opts)},
      ${scoredCte(sql`(SELECT m FROM q)`)},
      top AS MATERIALIZED (SELECT rid, score FROM scored ORDER BY score DESC, rid LIMIT ${opts.limit} OFFSET ${opts.offset}),
      hits AS MATERIALIZED (
        SELECT t.rid, e.record_id, e.kind, e.title, t.score, e.workspace_id, e.project_id, ${docOf} AS doc_id,
          (CASE e.kind WHEN 'row' THEN e.record_id WHEN 'comment' THEN e.row_id END) AS row_ref
        FROM top t JOIN search_entries e ON e.id = t.rid
        WHERE e.live = 1
          AND ((${docOf} IS NULL AND ${projectInReach(sql`e.workspace_id`, sql`e.project_id`)})
            OR (${docOf} IS NOT NULL AND ${documentInReach(sql`e.workspace_id`, docOf)}))
          AND ${servedHere("e.workspace_id")}
          ${sql.join(filters, sql` `)}),
      anc(hit, id, parent_id, name, depth, readable) AS (
        SELECT h.record_id, p.id, p.parent_id, p.name, 1, ${parentReadable}
        FROM hits h JOIN documents c ON c.id = h.doc_id JOIN documents p ON p.id = c.parent_id
        UNION ALL
        SELECT a.hit, p.id, p.parent_id, p.name, a.depth + 1, ${parentReadable}
        FROM anc a JOIN documents p ON p.id = a.parent_id WHERE a.depth < ${depth} AND a.readable)
    SELECT h.rid AS rid, h.score AS score, h.record_id AS record_id, h.kind AS kind,
      (CASE WHEN h.kind = 'comment' THEN COALESCE((SELECT te.title FROM search_entries te
        WHERE te.record_id = COALESCE(h.doc_id, h.row_ref)), '') ELSE h.title END) AS title, h.workspace_id AS workspace_id,
      h.project_id AS project_id, pr.name AS project_name, t.id AS table_id, t.name AS table_name,
      (SELECT json_group_array(json_object('_id', x.id, 'name', x.name))
        FROM (SELECT id, name FROM anc WHERE hit = h.record_id AND readable ORDER BY depth DESC) x) AS folders,
      (SELECT snippet(search_fts, -1, ${MARK_OPEN}, ${MARK_CLOSE}, '…', ${SNIPPET_TOKENS}) FROM search_fts
        WHERE search_fts MATCH ${match} AND rowid = h.rid) AS snip,
      cm.document_id AS document_id, cm.row_id AS row_id, cm.thread_id AS thread_id
    FROM hits h LEFT JOIN projects pr ON pr.id = h.project_id
      LEFT JOIN rows r ON r.id = h.row_ref LEFT JOIN table_views tv ON h.kind = 'view' AND tv.id = h.record_id
      LEFT JOIN tables t ON t.id = COALESCE(r.table_id, tv.table_id)
      LEFT JOIN comments cm ON h.kind = 'comment' AND cm.id = h.record_id
    UNION ALL
    SELECT ${TOO_BROAD_RID}, 0, '', 'row', '', '', '', NULL, NULL, NULL, '[]', NULL, NULL, NULL, NULL WHERE ${tooBroadSql}`;
}

/** The row id of the marker row a statement adds when its query matched more records than it may score. */
const TOO_BROAD_RID = -1;

const HIT_COLUMNS = [
  "rid",
  "score",
  "record_id",
  "kind",
  "title",
  "workspace_id",
  "project_id",
  "project_name",
  "table_id",
  "table_name",
  "folders",
  "snip",
  "document_id",
  "row_id",
  "thread_id",
] as const;

function hitDto(r: HitRow): SearchHit {
  let folders: { _id: string; name: string }[] = [];
  try {
    folders = JSON.parse(r.folders) as { _id: string; name: string }[];
  } catch {
    folders = [];
  }
  return {
    _id: r.record_id,
    kind: r.kind,
    title: r.title,
    workspaceId: r.workspace_id,
    projectId: r.project_id,
    tableId: r.table_id,
    path: {
      project: { _id: r.project_id, name: r.project_name ?? "" },
      folders,
      table: r.table_id ? { _id: r.table_id, name: r.table_name ?? "" } : null,
    },
    snippet: snippetHtml(r.snip ?? ""),
    score: roundScore(r.score),
    target:
      r.kind === "comment"
        ? { documentId: r.document_id, rowId: r.row_id, threadId: r.thread_id ?? r.record_id }
        : null,
  };
}

export async function search(
  ctx: ServiceContext,
  input: SearchInput,
): Promise<{ data: SearchHit[]; nextCursor: string | null }> {
  const match = ftsExpression(input.q);
  const limit = Math.min(Math.max(input.limit ?? DEFAULT_SEARCH_LIMIT, 1), MAX_SEARCH_LIMIT);
  const offset = input.cursor ? decodeSearchCursor(input.cursor) : 0;
  let rows: HitRow[];
  try {
    const scope = input.projectId ?? input.workspaceId;
    if (scope) {
      // A workspace or project lives on one shard database: one statement there.
      const there = answersFrom(ctx.on(scope));
      const statement = searchStatementSql(there.user.ref, match, { ...input, limit: limit + 1, offset });
      [rows] = (await read(there, [rawSelect<HitRow>(there.db, HIT_COLUMNS, statement)])) as [HitRow[]];
    } else {
      // Everything the caller can read: every shard database at once beside the token's check, each ranking its own
      // first pages, merged here.
      const statement = searchStatementSql(ctx.user.ref, match, { ...input, limit: offset + limit + 1, offset: 0 });
      const perShard = await readOnEveryShard(ctx, (db) => [rawSelect<HitRow>(db, HIT_COLUMNS, statement)]);
      const found = perShard.flatMap(([shardRows]) => shardRows) as HitRow[];
      if (found.some((r) => r.rid === TOO_BROAD_RID)) throw tooBroad();
      rows = found.sort(byRank).slice(offset, offset + limit + 1);
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (isFtsQueryError(err))
      throw new ApiError(
        "UnprocessableEntityError",
        "The search query cannot be read; quote words that contain punctuation",
      );
    throw err;
  }
  if (rows.some((r) => r.rid === TOO_BROAD_RID)) throw tooBroad();
  // A token limited to some resources finds nothing outside them, as it reads nothing there (src/auth/tokenLimits.ts).
  rows = rows.filter((r) => !outsideResources({ workspaceId: r.workspace_id, projectId: r.project_id }));
  // The outer SELECT of a compound query keeps no order of its own: rank again (score, then entry id for ties).
  rows.sort(byRank);
  const more = rows.length > limit && offset + limit < MAX_OFFSET;
  return {
    data: rows.slice(0, limit).map(hitDto),
    nextCursor: more ? textToBase64Url(`o:${offset + limit}`) : null,
  };
}
