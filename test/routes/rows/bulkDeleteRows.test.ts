/** POST /table/{tableId}/rows/delete (docs/api-guide.md › Bulk writes): soft delete of many rows, all or nothing. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, seedTenant, type Tenant } from "../../support/harness";
import { cellsById, makeBulkTable, type BulkTable } from "../../support/bulkRows";
import { shardD1 } from "../../support/shards";

let t: Tenant;
let b: BulkTable & { rowIds: string[] };
beforeAll(async () => {
  t = await seedTenant();
  b = await makeBulkTable(t, 20);
});

const del = (ids: string[], token = t.editor.token, headers: Record<string, string> = {}) =>
  call("POST", `/table/${b.tableId}/rows/delete`, { token, body: { ids }, headers });

describe("POST /table/{tableId}/rows/delete", () => {
  it("soft-deletes the rows (gone from reads, E16 404) and answers their ids", async () => {
    const ids = b.rowIds.slice(0, 3);
    const res = await del(ids);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { ids } });
    const live = await cellsById(t.owner.token, b.tableId);
    for (const id of ids) {
      expect(live.has(id)).toBe(false);
      expectError(await call("GET", `/table/row/${id}`, { token: t.owner.token }), 404, "NotFoundError");
    }
    expect(live.size).toBe(17);
  });

  it("an unknown or already deleted id is 404 naming it, and nothing is deleted", async () => {
    const res = await del([b.rowIds[5]!, "no-such-row"]);
    expectError(res, 404, "NotFoundError");
    expect(res.body.details).toEqual([{ path: "ids.1", message: expect.any(String) }]);
    expectError(await del([b.rowIds[5]!, b.rowIds[0]!]), 404, "NotFoundError");
    expect((await cellsById(t.owner.token, b.tableId)).has(b.rowIds[5]!)).toBe(true);
    expectError(await del([b.rowIds[5]!, b.rowIds[5]!]), 400, "ValidationError");
  });

  it("a row no longer live when the batch runs (deleted after the read) makes it a 404, nothing deleted", async () => {
    const ids = b.rowIds.slice(10, 13);
    // The batch's soft delete passes over one row, as it would over a row deleted since the read.
    await shardD1(b.tableId)
      .prepare(
        `CREATE TRIGGER skip_bulk_delete BEFORE UPDATE OF is_deleted ON rows WHEN OLD.id = '${ids[1]}' BEGIN SELECT RAISE(IGNORE); END`,
      )
      .run();
    try {
      expectError(await del(ids), 404, "NotFoundError");
    } finally {
      await shardD1(b.tableId).prepare("DROP TRIGGER skip_bulk_delete").run();
    }
    const live = await cellsById(t.owner.token, b.tableId);
    for (const id of ids) expect(live.has(id)).toBe(true);
  });

  it("a viewer is 403, an outsider 404; a keyed delete replays", async () => {
    const id = b.rowIds[6]!;
    expectError(await del([id], t.viewer.token), 403, "ForbiddenError");
    expectError(await del([id], t.outsider.token), 404, "NotFoundError");
    const key = `bulk-delete-${Date.now()}`;
    expect((await del([id], t.editor.token, { "idempotency-key": key })).status).toBe(200);
    const again = await del([id], t.editor.token, { "idempotency-key": key });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });
});
