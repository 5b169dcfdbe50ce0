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
import type { ServiceContext } from "../context";
import { bodiesStatement, bodySourcesStatement, ftsRebuildStatement, structureStatements } from "./queries";
import { blocksJsonText, docxText } from "./text";

const PAGE = 100;
const R2_CONCURRENCY = 6;

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
  const shards = ctx.everyShard();
  const at = /^(\d+):(.*)$/.exec(cursor ?? "");
  const shard = at ? Math.min(Number(at[1]), shards.length - 1) : 0;
  const { documents, last } = await reindexShard(shards[shard]!, at?.[2] || null);
  if (last !== null) return { documents, nextCursor: `${shard}:${last}` };
  return { documents, nextCursor: shard + 1 < shards.length ? `${shard + 1}:` : null };
}

/** A page of one shard's rebuild: the last document done, or null once the shard is done (its full-text index rebuilt). */
async function reindexShard(
  ctx: ServiceContext,
  cursor: string | null,
): Promise<{ documents: number; last: string | null }> {
  const d1 = d1Of(ctx.db);
  const page = bodySourcesStatement(d1, cursor ?? "", PAGE);
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
    ...(bodies.length ? [bodiesStatement(d1, bodies)] : []),
    ...(last === null ? [ftsRebuildStatement(d1)] : []),
  ];
  if (writes.length) await d1.batch(writes);
  return { documents: sources.length, last };
}
