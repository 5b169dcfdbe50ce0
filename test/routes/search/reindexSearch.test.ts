/** reindexSearch: POST /admin/search/reindex (src/routes/search/reindex.ts) — its happy path, errors and request-path checks. */
/**
 * GET /search (docs/api-guide.md › Search): ranking, snippets, the query syntax, every access path and its
 * revocation, soft-delete and restore, rows, DOCX files and a collaboration edit written back.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { ids, searchDocs, word } from "../../support/search";
import { everyShardD1, shardD1 } from "../../support/shards";
import { makeTable } from "../../support/tableHarness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

const { mkDoc, putText } = searchDocs(() => t);

describe("POST /admin/search/reindex", () => {
  it("rebuilds the index from the real tables and objects, a page at a time", async () => {
    const w = word("reidx");
    const doc = await mkDoc(`Reindexed ${w}`);
    await putText(doc, `body ${w}body`);
    const comment = (
      await ok("POST", `/document/${doc}/comment`, { token: t.owner.token, body: { body: `${w}remark` } })
    ).data._id as string;
    const tombstone = (
      await ok("POST", `/document/${doc}/comment`, { token: t.owner.token, body: { body: `${w}gone` } })
    ).data._id as string;
    await ok("DELETE", `/comment/${tombstone}`, { token: t.owner.token });
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Saved");
    const view = (await ok("POST", `/table/${tableId}/view`, { token: t.owner.token, body: { name: `${w}view` } })).data
      ._id as string;
    // Simulate a lost index: the derived table emptied behind the application's back.
    await shardD1(doc)
      .prepare("DELETE FROM search_entries WHERE record_id IN (?, ?, ?, ?)")
      .bind(doc, comment, tombstone, view)
      .run();
    expect(await ids(t.owner.token, `${w}view`)).toEqual([]);
    expect(await ids(t.owner.token, w)).toEqual([]);
    expect(await ids(t.owner.token, `${w}remark`)).toEqual([]);
    expectError(
      await call("POST", "/admin/search/reindex", { token: t.owner.token, body: {} }),
      401,
      "UnauthorizedError",
    );
    let cursor: string | null = null;
    let calls = 0;
    do {
      const page: any = await ok("POST", "/admin/search/reindex", { token: ADMIN_TOKEN, body: { cursor } });
      cursor = page.data.nextCursor;
      calls++;
    } while (cursor && calls < 10_000);
    expect(await ids(t.owner.token, w)).toEqual([doc]);
    expect(await ids(t.owner.token, `${w}body`)).toEqual([doc]);
    // Comments come back too, tombstones do not.
    expect(await ids(t.owner.token, `${w}remark`)).toEqual([comment]);
    expect(await ids(t.owner.token, `${w}gone`)).toEqual([]);
    // Saved views too.
    expect(await ids(t.owner.token, `${w}view`)).toEqual([view]);
    for (const d1 of everyShardD1()) {
      const integrity = await d1
        .prepare("INSERT INTO search_fts (search_fts, rank) VALUES ('integrity-check', 1)")
        .run();
      expect(integrity.success).toBe(true);
    }
  });
});
