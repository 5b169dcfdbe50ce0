// The floors of `npm run bench -- load`, `-- query` and `-- bulk`: what the same D1 calls cost with no application code.
// /floor/document/{id} (load): what an authenticated single-record read costs.
// It makes the calls E10 makes — the token's row (and the shard placements) from the directory and E10's batch of four statements from the
// document's shard database at the same time, then the per-user Rate Limiting call — with none of the routing,
// validation, access decisions, serialization or headers around them. Run by scripts/bench/load.mjs under its own
// `wrangler dev`, on a copy of the API's seeded state. The document's shard database is found as the Worker finds
// it (the id codec and the map of src/db/, which wrangler bundles here).
import { shardBindingOfId } from "../../src/tenancy/kernel/ids";

// /floor/sql (query, bulk): the bench's hand-written SQL, run on the shard database holding `shardOf` (one statement
// alone, several as one batch) beside the token's directory read, as the API reads the token beside its first batch.
// Local benches only: it runs whatever SQL it is given.

const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");

/** The bearer token's hash and the user id it names. */
async function caller(request) {
  const token = (request.headers.get("authorization") ?? "").replace(/^Bearer\s+/i, "");
  const hash = hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)));
  return { hash, userId: /^cws_([A-Za-z0-9-]{1,64})_/.exec(token)?.[1] ?? "" };
}

/**
 * The directory's batch: the token's row, and the shard placements recorded since (none), which the Worker reads
 * beside every token (src/tenancy/kernel/placements.ts).
 */
function tokenRead(env, hash) {
  const directory = env.DB.withSession("first-unconstrained");
  return directory.batch([
    directory
      .prepare(
        "SELECT t.id, t.expires_at, u.id AS user_id, u.email, u.name FROM access_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ?",
      )
      .bind(hash),
    directory.prepare("SELECT logical, binding, seq FROM shard_placements WHERE seq > ?").bind(0),
  ]);
}

/** POST /floor/sql { shardOf, statements: [{ sql, params }] }: the statements' results, after the token's read. */
async function sqlFloor(request, env) {
  const [{ hash }, body] = await Promise.all([caller(request), request.json()]);
  const shard = env[shardBindingOfId(body.shardOf)].withSession("first-unconstrained");
  const prepared = body.statements.map((s) => shard.prepare(s.sql).bind(...(s.params ?? [])));
  const [[tokenRows], results] = await Promise.all([
    tokenRead(env, hash),
    prepared.length === 1 ? prepared[0].all().then((r) => [r]) : shard.batch(prepared),
  ]);
  if (!tokenRows.results[0]) return Response.json({ error: "UnauthorizedError" }, { status: 401 });
  return Response.json({ data: results.map((r) => r.results) });
}

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (pathname === "/health") return Response.json({ ok: true });
    if (pathname === "/floor/sql" && request.method === "POST") return sqlFloor(request, env);
    const match = /^\/floor\/document\/([0-9A-Z]{26,28})$/.exec(pathname);
    if (!match) return new Response("not found", { status: 404 });
    const { hash, userId } = await caller(request);
    const shard = env[shardBindingOfId(match[1])].withSession("first-unconstrained");
    const ids = JSON.stringify([match[1]]);
    // E10's shard batch, the same four statements: the document, the caller's workspace role, its grants on the
    // document and its folders, and the document's collaborators.
    const [[tokenRows], [docs, , , collaborators]] = await Promise.all([
      tokenRead(env, hash),
      shard.batch([
        shard.prepare("SELECT * FROM documents WHERE id IN (SELECT value FROM json_each(?))").bind(ids),
        shard
          .prepare(
            "SELECT workspace_id, role FROM workspace_collaborators WHERE user_id = ? AND workspace_id IN (SELECT workspace_id FROM documents WHERE id IN (SELECT value FROM json_each(?)))",
          )
          .bind(userId, ids),
        shard
          .prepare(
            `WITH RECURSIVE chain(start_id, id, parent_id, depth) AS (
               SELECT d.id, d.id, d.parent_id, 0 FROM documents d WHERE d.id IN (SELECT value FROM json_each(?))
               UNION ALL
               SELECT c.start_id, d.id, d.parent_id, c.depth + 1 FROM documents d JOIN chain c ON d.id = c.parent_id WHERE c.depth < 65)
             SELECT c.start_id AS id, group_concat(dc.role) AS roles FROM chain c
             JOIN document_collaborators dc ON dc.document_id = c.id AND dc.user_id = ? GROUP BY c.start_id`,
          )
          .bind(ids, userId),
        shard
          .prepare(
            "SELECT * FROM document_collaborators WHERE document_id IN (SELECT value FROM json_each(?)) ORDER BY created_at",
          )
          .bind(ids),
      ]),
    ]);
    const row = tokenRows.results[0];
    if (!row) return Response.json({ error: "UnauthorizedError" }, { status: 401 });
    await env.RATE_LIMITER.limit({ key: `user|${row.user_id}` });
    return Response.json({ data: { ...docs.results[0], collaborators: collaborators.results } });
  },
};
