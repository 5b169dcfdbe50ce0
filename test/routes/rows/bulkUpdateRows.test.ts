/** PATCH /table/{tableId}/rows (docs/api-guide.md › Bulk writes): happy path, all or nothing, If-Match, access, keys, events. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { cellsById, makeBulkTable, type BulkTable } from "../../support/bulkRows";
import { finishedRuns } from "../../support/automations";
import { shardD1 } from "../../support/shards";

let t: Tenant;
let b: BulkTable & { rowIds: string[] };
beforeAll(async () => {
  t = await seedTenant();
  b = await makeBulkTable(t, 1000);
});

const patch = (body: unknown, token = t.editor.token, headers: Record<string, string> = {}) =>
  call("PATCH", `/table/${b.tableId}/rows`, { token, body, headers });

describe("PATCH /table/{tableId}/rows", () => {
  it("changes several cells of several rows, select by label or id, and recomputes their formulas", async () => {
    const [r1, r2, r3] = b.rowIds as [string, string, string];
    const res = await patch({
      rows: [
        { _id: r1, cells: { [b.qty]: 10, [b.price]: 3, [b.status]: "Open" } },
        { _id: r2, cells: { [b.qty]: 7, [b.status]: "done" } },
        { _id: r3, cells: { [b.name]: null } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: any) => r._id)).toEqual([r1, r2, r3]);
    expect(res.body.data[0].cells).toEqual({ [b.qty]: 10, [b.price]: 3, [b.status]: "open", [b.total]: 30 });
    expect(res.body.data[1].cells).toEqual({ [b.qty]: 7, [b.status]: "done", [b.total]: 14 });
    const stored = await cellsById(t.viewer.token, b.tableId);
    expect(stored.get(r1)).toMatchObject({
      [b.name]: "r0",
      [b.qty]: 10,
      [b.price]: 3,
      [b.status]: "open",
      [b.total]: 30,
    });
    expect(stored.get(r2)).toMatchObject({ [b.name]: "r1", [b.qty]: 7, [b.price]: 2, [b.total]: 14 });
    expect(stored.get(r3)![b.name]).toBeNull();
  });

  it("all or nothing: a bad value in row 900 of 1,000 is 400 with its path, and no row changes", async () => {
    const before = await cellsById(t.owner.token, b.tableId);
    const rows = b.rowIds.map((id, i) => ({ _id: id, cells: { [b.qty]: i === 900 ? "many" : 5000 + i } }));
    const res = await patch({ rows });
    expectError(res, 400, "ValidationError");
    expect(res.body.details).toEqual([{ path: `rows.900.cells.${b.qty}`, message: expect.any(String) }]);
    expect(await cellsById(t.owner.token, b.tableId)).toEqual(before);
    // An unknown select label is a bad value too.
    expectError(await patch({ rows: [{ _id: b.rowIds[5], cells: { [b.status]: "Closed" } }] }), 400, "ValidationError");
  });

  it("all or nothing: when the database refuses row 900's cell, no row changes", async () => {
    const before = await cellsById(t.owner.token, b.tableId);
    const rows = b.rowIds.map((id, i) => ({ _id: id, cells: { [b.name]: `changed ${i}`, [b.qty]: -i } }));
    // A trigger standing in for any failure inside D1 (a fence, a constraint) on row 900's cell.
    await shardD1(b.tableId)
      .prepare(
        `CREATE TRIGGER fail_bulk_update BEFORE UPDATE ON cells WHEN NEW.table_id = '${b.tableId}' AND NEW.data = '"changed 900"' BEGIN SELECT RAISE(ABORT, 'boom'); END`,
      )
      .run();
    try {
      expect((await patch({ rows })).status).toBe(500);
    } finally {
      await shardD1(b.tableId).prepare("DROP TRIGGER fail_bulk_update").run();
    }
    expect(await cellsById(t.owner.token, b.tableId)).toEqual(before);
  });

  it("all or nothing: a row no longer live when the batch runs (deleted after the read) makes it a 404, nothing written", async () => {
    const before = await cellsById(t.owner.token, b.tableId);
    const rows = b.rowIds.slice(0, 300).map((id, i) => ({ _id: id, cells: { [b.name]: `raced ${i}` } }));
    // The batch's touch of the rows' updatedAt passes over row 150, as it would over a row deleted since the read.
    await shardD1(b.tableId)
      .prepare(
        `CREATE TRIGGER skip_bulk_touch BEFORE UPDATE OF updated_at ON rows WHEN OLD.id = '${b.rowIds[150]}' BEGIN SELECT RAISE(IGNORE); END`,
      )
      .run();
    try {
      expectError(await patch({ rows }), 404, "NotFoundError");
    } finally {
      await shardD1(b.tableId).prepare("DROP TRIGGER skip_bulk_touch").run();
    }
    expect(await cellsById(t.owner.token, b.tableId)).toEqual(before);
  });

  it("all or nothing: a computed column is 409, a row of no table here 404 naming it, a repeated row 400", async () => {
    const before = await cellsById(t.owner.token, b.tableId);
    const [a, c] = b.rowIds.slice(10, 12) as [string, string];
    expectError(
      await patch({
        rows: [
          { _id: a, cells: { [b.qty]: 1 } },
          { _id: c, cells: { [b.total]: 1 } },
        ],
      }),
      409,
      "ConflictError",
    );
    const missing = await patch({
      rows: [
        { _id: a, cells: { [b.qty]: 1 } },
        { _id: "no-such-row", cells: {} },
      ],
    });
    expectError(missing, 404, "NotFoundError");
    expect(missing.body.details).toEqual([{ path: "rows.1._id", message: expect.any(String) }]);
    expectError(
      await patch({
        rows: [
          { _id: a, cells: {} },
          { _id: a, cells: { [b.qty]: 1 } },
        ],
      }),
      400,
      "ValidationError",
    );
    expect(await cellsById(t.owner.token, b.tableId)).toEqual(before);
  });

  it("ifMatch per row: the current ETag writes, a stale one is 412 and nothing is written", async () => {
    const [a, c] = b.rowIds.slice(20, 22) as [string, string];
    const etagOf = async (id: string) =>
      (await call("GET", `/table/row/${id}`, { token: t.owner.token })).headers.get("etag")!;
    const stale = await etagOf(a);
    await ok("PATCH", `/table/${b.tableId}/rows`, {
      token: t.editor.token,
      body: { rows: [{ _id: a, cells: { [b.qty]: 1 }, ifMatch: stale }] },
    });
    const fresh = await etagOf(c);
    const refused = await patch({
      rows: [
        { _id: c, cells: { [b.qty]: 99 }, ifMatch: fresh },
        { _id: a, cells: { [b.qty]: 99 }, ifMatch: stale },
      ],
    });
    expectError(refused, 412, "PreconditionFailedError");
    const stored = await cellsById(t.owner.token, b.tableId);
    expect([stored.get(a)![b.qty], stored.get(c)![b.qty]]).toEqual([1, 21]);
  });

  it("a viewer (readable, not writable) is 403; an outsider 404 as for a missing table", async () => {
    const body = { rows: [{ _id: b.rowIds[30], cells: { [b.qty]: 1 } }] };
    expectError(await patch(body, t.viewer.token), 403, "ForbiddenError");
    expectError(await patch(body, t.outsider.token), 404, "NotFoundError");
    expectError(
      await call("PATCH", `/table/no-such-table/rows`, { token: t.editor.token, body }),
      404,
      "NotFoundError",
    );
  });

  it("an Idempotency-Key replays the kept answer without writing again", async () => {
    const id = b.rowIds[40]!;
    const key = `bulk-update-${Date.now()}`;
    const body = { rows: [{ _id: id, cells: { [b.qty]: 4 } }] };
    const first = await patch(body, t.editor.token, { "idempotency-key": key });
    expect(first.status).toBe(200);
    // The declared 2 (the claim rides in the read, the kept answer in the write), plus 1 remembering the final answer.
    expect(Number(first.headers.get("x-d1-round-trips"))).toBeLessThanOrEqual(3);
    await ok("PUT", `/table/row/${id}/cell/${b.qty}`, { token: t.editor.token, body: { data: 8 } });
    const again = await patch(body, t.editor.token, { "idempotency-key": key });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data[0]).toMatchObject({ _id: id, cells: { [b.qty]: 4 } });
    expect((await cellsById(t.owner.token, b.tableId)).get(id)![b.qty]).toBe(8);
    expectError(
      await patch({ rows: [{ _id: id, cells: { [b.qty]: 5 } }] }, t.editor.token, { "idempotency-key": key }),
      422,
      "UnprocessableEntityError",
    );
  });

  it("each row written emits row.updated: an automation runs once per row, all in the call's one cascade", async () => {
    const ids = b.rowIds.slice(50, 53);
    const a = (
      await ok("POST", "/automation", {
        token: t.owner.token,
        body: {
          projectId: t.projectId,
          name: "Per row",
          triggers: [{ event: "row.updated", filter: { tableId: b.tableId, columnId: b.price } }],
          actions: [{ id: "n", spec: { kind: "notify", title: "changed", body: "a row" } }],
        },
      })
    ).data;
    await ok("PATCH", `/table/${b.tableId}/rows`, {
      token: t.owner.token,
      body: { rows: ids.map((_id) => ({ _id, cells: { [b.price]: 1 } })) },
    });
    const done = await finishedRuns(t.owner.token, a._id, 3);
    expect(done.map((r) => r.trigger.rowId).sort()).toEqual([...ids].sort());
    expect(done.every((r) => r.status === "succeeded")).toBe(true);
    // One cause: the rows' runs share one cascade, so its budget (1,000 automation writes) bounds the whole call.
    const cascades = await shardD1(a._id)
      .prepare("SELECT DISTINCT cascade_id AS c FROM automation_runs WHERE automation_id = ?1")
      .bind(a._id)
      .all();
    expect(cascades.results).toHaveLength(1);
  });
});
