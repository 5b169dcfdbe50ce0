/**
 * Rebuilding the search index from the real tables and objects (docs/api-guide.md › Search), a page at a time so
 * each call stays short: `npm run search:reindex` calls POST /admin/search/reindex until `nextCursor` is null.
 *
 * - The first call (no cursor) rewrites every title and every row's text from `documents` and `cells` in SQL and
 *   drops entries whose record is gone.
 * - Each call then reads the bodies of up to PAGE documents (content objects and newest DOCX blobs in R2).
 * - The last call rebuilds the FTS5 index itself from `search_entries` ('rebuild').
 *
 * Keyed calls (docs/api-guide.md › HTTP semantics): the page writes in a shard database and the admin's key is held
 * in the directory, so the answer cannot commit with the page. It need not: a page only rewrites entries from the
 * data, so a page run again after a crash (a retry taking over the key after its lease) writes the same entries and
 * answers the same `nextCursor`; a finished page's answer is kept and replayed as any other.
 */
import { d1Of } from "../../db/d1";
import { mapConcurrent } from "../../lib/concurrency";
import { onDatabase, type ServiceContext } from "../context";
import { shardBindings } from "../../tenancy/kernel/map";
import { blocksJsonText, docxText } from "./text";

const PAGE = 100;
const R2_CONCURRENCY = 6;

const ROW_TEXT = (rowId: string) => `
  COALESCE((SELECT group_concat(json_extract(c.data, '$'), ' ') FROM cells c JOIN columns co ON co.id = c.column_id
    WHERE c.row_id = ${rowId} AND c.is_identifier = 1 AND c.is_deleted = 0 AND co.is_deleted = 0 AND json_type(c.data) = 'text'), ''),
  COALESCE((SELECT group_concat(json_extract(c.data, '$'), ' ') FROM cells c JOIN columns co ON co.id = c.column_id
    WHERE c.row_id = ${rowId} AND c.is_identifier = 0 AND c.is_deleted = 0 AND co.is_deleted = 0 AND json_type(c.data) = 'text'
      AND json_extract(co.data, '$.type') IN ('text', 'url', 'email')), '')`;

/** The SQL-only part: titles, rows, and entries of records that no longer exist. */
function structureStatements(d1: D1Database): D1PreparedStatement[] {
  return [
    d1.prepare(`INSERT INTO search_entries (record_id, kind, title, workspace_id, project_id, live)
      SELECT id, CASE WHEN type = 'EXTERNAL' THEN 'file' ELSE 'document' END, name, workspace_id, project_id, is_deleted = 0 FROM documents WHERE true
      ON CONFLICT (record_id) DO UPDATE SET title = excluded.title, kind = excluded.kind, workspace_id = excluded.workspace_id,
        project_id = excluded.project_id, live = excluded.live`),
    d1.prepare(`INSERT INTO search_entries (record_id, kind, title, body, workspace_id, project_id, live)
      SELECT r.id, 'row', ${ROW_TEXT("r.id")}, r.workspace_id, r.project_id,
        r.is_deleted = 0 AND NOT EXISTS (SELECT 1 FROM tables t WHERE t.id = r.table_id AND t.is_deleted = 1)
      FROM rows r WHERE EXISTS (SELECT 1 FROM cells c WHERE c.row_id = r.id)
      ON CONFLICT (record_id) DO UPDATE SET title = excluded.title, body = excluded.body, workspace_id = excluded.workspace_id,
        project_id = excluded.project_id, live = excluded.live`),
    d1.prepare(`DELETE FROM search_entries WHERE
      (kind = 'row' AND NOT EXISTS (SELECT 1 FROM rows r WHERE r.id = search_entries.record_id))
      OR (kind <> 'row' AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = search_entries.record_id))`),
  ];
}

interface BodySource {
  id: string;
  type: string;
  content_key: string | null;
  docx_key: string | null;
}

/**
 * One page of the rebuild. The cursor names the shard database being rebuilt and the last document done in it
 * (`<shard index>:<document id>`, the id empty at a shard's start); shards are rebuilt one after another.
 */
export async function reindexSearch(
  ctx: ServiceContext,
  { cursor }: { cursor: string | null },
): Promise<{ documents: number; nextCursor: string | null }> {
  const bindings = shardBindings();
  const at = /^(\d+):(.*)$/.exec(cursor ?? "");
  const shard = at ? Math.min(Number(at[1]), bindings.length - 1) : 0;
  const { documents, last } = await reindexShard(onDatabase(ctx, bindings[shard]!), at?.[2] || null);
  if (last !== null) return { documents, nextCursor: `${shard}:${last}` };
  return { documents, nextCursor: shard + 1 < bindings.length ? `${shard + 1}:` : null };
}

/** A page of one shard's rebuild: the last document done, or null once the shard is done (its full-text index rebuilt). */
async function reindexShard(
  ctx: ServiceContext,
  cursor: string | null,
): Promise<{ documents: number; last: string | null }> {
  const d1 = d1Of(ctx.db);
  const page = d1
    .prepare(
      `SELECT d.id, d.type, c.r2_key AS content_key,
         (SELECT v.r2_key FROM docx_versions v WHERE v.document_id = d.id ORDER BY v.version DESC LIMIT 1) AS docx_key
       FROM documents d LEFT JOIN document_contents c ON c.document_id = d.id
       WHERE d.id > ?1 ORDER BY d.id LIMIT ?2`,
    )
    .bind(cursor ?? "", PAGE);
  const results = await d1.batch<BodySource>([...(cursor === null ? structureStatements(d1) : []), page]);
  const sources = results[results.length - 1]!.results;
  const bodies: { id: string; body: string }[] = [];
  await mapConcurrent(sources, R2_CONCURRENCY, async (s) => {
    if (s.type === "EXTERNAL" && s.docx_key) {
      const obj = await ctx.env.BLOBS.get(s.docx_key);
      bodies.push({ id: s.id, body: obj ? docxText(new Uint8Array(await obj.arrayBuffer())) : "" });
    } else if (s.content_key) {
      const obj = await ctx.env.BLOBS.get(s.content_key);
      bodies.push({ id: s.id, body: obj ? blocksJsonText(await obj.text()) : "" });
    } else bodies.push({ id: s.id, body: "" });
  });
  const last = sources.length === PAGE ? sources[sources.length - 1]!.id : null;
  const writes = [
    ...(bodies.length
      ? [
          d1
            .prepare(
              `UPDATE search_entries SET body = j.value ->> 1 FROM json_each(?1) j WHERE search_entries.record_id = j.value ->> 0`,
            )
            .bind(JSON.stringify(bodies.map((b) => [b.id, b.body]))),
        ]
      : []),
    ...(last === null ? [d1.prepare(`INSERT INTO search_fts (search_fts) VALUES ('rebuild')`)] : []),
  ];
  if (writes.length) await d1.batch(writes);
  return { documents: sources.length, last };
}
