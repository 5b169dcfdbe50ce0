/** PATCH /table/row/{rowId} (docs/api-guide.md › Bulk writes): several cells of one row. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, seedTenant, type Tenant } from "../../support/harness";
import { cellsById, makeBulkTable, type BulkTable } from "../../support/bulkRows";

let t: Tenant;
let b: BulkTable & { rowIds: string[] };
beforeAll(async () => {
  t = await seedTenant();
  b = await makeBulkTable(t, 3);
});

const patch = (
  rowId: string,
  cells: Record<string, unknown>,
  token = t.editor.token,
  headers: Record<string, string> = {},
) => call("PATCH", `/table/row/${rowId}`, { token, body: { cells }, headers });

describe("PATCH /table/row/{rowId}", () => {
  it("writes several cells, select by label, and answers the row with its recomputed formula cells", async () => {
    const id = b.rowIds[1]!;
    const res = await patch(id, { [b.qty]: 6, [b.price]: 7, [b.status]: "Open" });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ _id: id, tableId: b.tableId, isDeleted: false });
    expect(res.body.data.cells).toEqual({ [b.qty]: 6, [b.price]: 7, [b.status]: "open", [b.total]: 42 });
    expect((await cellsById(t.viewer.token, b.tableId)).get(id)).toMatchObject({ [b.name]: "r1", [b.total]: 42 });
  });

  it("If-Match: the current ETag writes, a stale one is 412 and nothing changes", async () => {
    const id = b.rowIds[2]!;
    const etag = (await call("GET", `/table/row/${id}`, { token: t.owner.token })).headers.get("etag")!;
    expect((await patch(id, { [b.qty]: 1 }, t.editor.token, { "if-match": etag })).status).toBe(200);
    expectError(await patch(id, { [b.qty]: 2 }, t.editor.token, { "if-match": etag }), 412, "PreconditionFailedError");
    expect((await cellsById(t.owner.token, b.tableId)).get(id)![b.qty]).toBe(1);
  });

  it("400 for a bad value, 409 for a computed cell, 403 for a viewer, 404 for an outsider or a missing row", async () => {
    const id = b.rowIds[0]!;
    const bad = await patch(id, { [b.qty]: 3, [b.price]: "two" });
    expectError(bad, 400, "ValidationError");
    expect(bad.body.details).toEqual([{ path: `cells.${b.price}`, message: expect.any(String) }]);
    expectError(await patch(id, { [b.total]: 3 }), 409, "ConflictError");
    expect((await cellsById(t.owner.token, b.tableId)).get(id)![b.qty]).toBe(0);
    expectError(await patch(id, { [b.qty]: 3 }, t.viewer.token), 403, "ForbiddenError");
    expectError(await patch(id, { [b.qty]: 3 }, t.outsider.token), 404, "NotFoundError");
    expectError(await patch("no-such-row", { [b.qty]: 3 }), 404, "NotFoundError");
  });

  it("an Idempotency-Key replays the kept answer", async () => {
    const id = b.rowIds[0]!;
    const key = `patch-row-${Date.now()}`;
    expect((await patch(id, { [b.qty]: 9 }, t.editor.token, { "idempotency-key": key })).status).toBe(200);
    const again = await patch(id, { [b.qty]: 9 }, t.editor.token, { "idempotency-key": key });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data).toMatchObject({ _id: id, cells: { [b.qty]: 9 } });
  });
});
