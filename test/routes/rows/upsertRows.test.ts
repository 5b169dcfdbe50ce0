/** POST /table/{tableId}/rows/upsert (docs/api-guide.md › Bulk writes): match on key columns, create or update, all or nothing. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { cellsById, makeBulkTable, type BulkTable } from "../../support/bulkRows";
import { addRow } from "../../support/tableHarness";

let t: Tenant;
let b: BulkTable & { rowIds: string[] };
beforeAll(async () => {
  t = await seedTenant();
  b = await makeBulkTable(t, 5); // r0…r4, Qty 0…4, Price 2
});

const upsert = (body: unknown, token = t.editor.token, headers: Record<string, string> = {}) =>
  call("POST", `/table/${b.tableId}/rows/upsert`, { token, body, headers });

describe("POST /table/{tableId}/rows/upsert", () => {
  it("updates the rows whose key matches and creates the others, answering both in input order", async () => {
    const res = await upsert({
      keyColumnIds: [b.name],
      rows: [
        { cells: { [b.name]: "new-1", [b.qty]: 1, [b.price]: 5 } },
        { cells: { [b.name]: "r1", [b.qty]: 10, [b.status]: "Done" } },
        { cells: { [b.name]: "new-2" } },
      ],
    });
    expect(res.status).toBe(200);
    const { created, updated, rows } = res.body.data;
    expect(updated).toEqual([b.rowIds[1]]);
    expect(created).toHaveLength(2);
    expect(rows.map((r: any) => r._id)).toEqual([created[0], b.rowIds[1], created[1]]);
    expect(rows[1].cells).toEqual({ [b.name]: "r1", [b.qty]: 10, [b.status]: "done", [b.total]: 20 });
    expect(rows[0].cells[b.total]).toBe(5);
    const stored = await cellsById(t.viewer.token, b.tableId);
    expect(stored.get(b.rowIds[1]!)).toMatchObject({ [b.qty]: 10, [b.price]: 2, [b.status]: "done", [b.total]: 20 });
    expect(stored.get(created[0])).toMatchObject({ [b.name]: "new-1", [b.total]: 5 });
    expect(stored.size).toBe(7);
  });

  it("matches on several key columns, a select key (first or not) by label", async () => {
    const k = await ok("POST", `/table/${b.tableId}/rows/upsert`, {
      token: t.editor.token,
      body: {
        keyColumnIds: [b.status, b.name],
        rows: [{ cells: { [b.name]: "r1", [b.status]: "Done", [b.price]: 3 } }],
      },
    });
    expect(k.data.updated).toEqual([b.rowIds[1]]);
    const other = await ok("POST", `/table/${b.tableId}/rows/upsert`, {
      token: t.editor.token,
      body: { keyColumnIds: [b.name, b.status], rows: [{ cells: { [b.name]: "r1", [b.status]: "open" } }] },
    });
    expect(other.data.created).toHaveLength(1);
  });

  it("a key matching several rows is 409 naming them, and nothing is written", async () => {
    const dup = await addRow(t.owner.token, b.tableId, { [b.name]: "r2" });
    const before = await cellsById(t.owner.token, b.tableId);
    const res = await upsert({
      keyColumnIds: [b.name],
      rows: [{ cells: { [b.name]: "fresh" } }, { cells: { [b.name]: "r2", [b.qty]: 1 } }],
    });
    expectError(res, 409, "ConflictError");
    expect(res.body.details).toHaveLength(1);
    expect(res.body.details[0].path).toBe("rows.1");
    expect(res.body.details[0].message).toContain(b.rowIds[2]);
    expect(res.body.details[0].message).toContain(dup.row._id);
    expect(await cellsById(t.owner.token, b.tableId)).toEqual(before);
    await ok("POST", `/table/${b.tableId}/rows/delete`, { token: t.owner.token, body: { ids: [dup.row._id] } });
  });

  it("400 for a repeated key in the input, a row without its key, a computed or unknown key column; nothing written", async () => {
    const before = await cellsById(t.owner.token, b.tableId);
    const twice = await upsert({
      keyColumnIds: [b.name],
      rows: [{ cells: { [b.name]: "x" } }, { cells: { [b.name]: "x" } }],
    });
    expectError(twice, 400, "ValidationError");
    expect(twice.body.details).toEqual([{ path: "rows.1", message: expect.any(String) }]);
    const keyless = await upsert({
      keyColumnIds: [b.name],
      rows: [{ cells: { [b.name]: "y" } }, { cells: { [b.qty]: 1 } }],
    });
    expect(keyless.body.details).toEqual([{ path: `rows.1.cells.${b.name}`, message: expect.any(String) }]);
    expectError(await upsert({ keyColumnIds: [b.total], rows: [{ cells: {} }] }), 400, "ValidationError");
    expectError(await upsert({ keyColumnIds: ["nope"], rows: [{ cells: {} }] }), 400, "ValidationError");
    expectError(
      await upsert({
        keyColumnIds: [b.name],
        rows: [{ cells: { [b.name]: "z" } }, { cells: { [b.name]: "r3", [b.qty]: "x" } }],
      }),
      400,
      "ValidationError",
    );
    expect(await cellsById(t.owner.token, b.tableId)).toEqual(before);
  });

  it("a viewer is 403, an outsider 404, and a keyed upsert replays without writing twice", async () => {
    const body = { keyColumnIds: [b.name], rows: [{ cells: { [b.name]: "keyed" } }] };
    expectError(await upsert(body, t.viewer.token), 403, "ForbiddenError");
    expectError(await upsert(body, t.outsider.token), 404, "NotFoundError");
    const key = `upsert-${Date.now()}`;
    const first = await upsert(body, t.editor.token, { "idempotency-key": key });
    // The declared 2 (the read with the key cells, the write), plus 1 remembering the final answer of a keyed call.
    expect(Number(first.headers.get("x-d1-round-trips"))).toBeLessThanOrEqual(3);
    const again = await upsert(body, t.editor.token, { "idempotency-key": key });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data.created).toEqual(first.body.data.created);
    const named = [...(await cellsById(t.owner.token, b.tableId)).values()].filter((c) => c[b.name] === "keyed");
    expect(named).toHaveLength(1);
  });
});
