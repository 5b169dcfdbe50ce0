/** GET /changes (docs/api-guide.md › Changes, history and audit): the change log written with every row write. */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { pruneChangeLog } from "../../../src/services/changes/prune";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { makeBulkTable, type BulkTable } from "../../support/bulkRows";
import { shardD1 } from "../../support/shards";

let t: Tenant;
let b: BulkTable & { rowIds: string[] };
beforeAll(async () => {
  t = await seedTenant();
  b = await makeBulkTable(t, 2);
});

/** Entries a client's write made (not the formula cells it recomputed, recorded after it as derived). */
const direct = (entries: any[]) => entries.filter((e) => !Object.values(e.changes ?? {}).some((c: any) => c.derived));

const feed = (query: string, token = t.owner.token) => call("GET", `/changes?${query}`, { token });

/** Every entry of the table's feed after `cursor`, following nextCursor. */
async function follow(tableId: string, cursor?: string, limit = 3) {
  const out: any[] = [];
  for (;;) {
    const page = await ok("GET", `/changes?tableId=${tableId}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`, {
      token: t.owner.token,
    });
    out.push(...page.data);
    if (page.nextCursor === cursor || page.data.length === 0) return { entries: out, cursor: page.nextCursor };
    cursor = page.nextCursor;
  }
}

describe("GET /changes", () => {
  it("one entry per change, in commit order, with before and after; nothing for a write that changes nothing", async () => {
    const start = (await ok("GET", `/changes?tableId=${b.tableId}&cursor=latest`, { token: t.owner.token })).nextCursor;
    const [r0, r1] = b.rowIds as [string, string];
    await ok("PUT", `/table/row/${r0}/cell/${b.qty}`, { token: t.editor.token, body: { data: 5 } });
    await ok("PUT", `/table/row/${r0}/cell/${b.qty}`, { token: t.editor.token, body: { data: 5 } });
    await ok("PATCH", `/table/row/${r1}`, { token: t.editor.token, body: { cells: { [b.qty]: 9, [b.price]: 2 } } });
    const created = await ok("POST", `/table/${b.tableId}/row`, {
      token: t.editor.token,
      body: { cells: { [b.qty]: 1 } },
    });
    const newId = created.data.row._id;
    await ok("DELETE", `/table/row/${newId}`, { token: t.editor.token });
    await ok("POST", `/table/${b.tableId}/rows/restore`, { token: t.editor.token, body: { ids: [newId] } });
    const entries = direct((await follow(b.tableId, start)).entries);
    expect(entries.map((e) => [e.kind, e.recordId])).toEqual([
      ["row.updated", r0],
      ["row.updated", r1],
      ["row.created", newId],
      ["row.deleted", newId],
      ["row.restored", newId],
    ]);
    expect(entries[0]).toMatchObject({
      organizationId: t.organizationId,
      workspaceId: t.workspaceId,
      projectId: t.projectId,
      tableId: b.tableId,
      actor: { type: "user", userId: t.editor.id, tokenId: expect.any(String) },
      source: "api",
      changes: { [b.qty]: { before: 0, after: 5 } },
    });
    // Price was already 2: only Qty changed.
    expect(entries[1].changes).toEqual({ [b.qty]: { before: 1, after: 9 } });
    expect(entries[2].changes).toEqual({ [b.qty]: { before: null, after: 1 } });
    expect(entries[3].changes).toBeUndefined();
  });

  it("bulk writes: one entry per row changed; a batch that fails records nothing", async () => {
    const start = (await ok("GET", `/changes?tableId=${b.tableId}&cursor=latest`, { token: t.owner.token })).nextCursor;
    const rows = await ok("POST", `/table/${b.tableId}/rows`, {
      token: t.editor.token,
      body: { rows: [{ cells: { [b.qty]: 1 } }, { cells: { [b.qty]: 2 } }, {}] },
    });
    const ids = rows.data.rows.map((r: any) => r._id);
    // A bad value among good ones: 400, nothing written, nothing recorded.
    expectError(
      await call("PATCH", `/table/${b.tableId}/rows`, {
        token: t.editor.token,
        body: {
          rows: [
            { _id: ids[0], cells: { [b.qty]: 3 } },
            { _id: ids[1], cells: { [b.qty]: "x" } },
          ],
        },
      }),
      400,
      "ValidationError",
    );
    await ok("PATCH", `/table/${b.tableId}/rows`, {
      token: t.editor.token,
      body: {
        rows: [
          { _id: ids[0], cells: { [b.qty]: 1 } },
          { _id: ids[1], cells: { [b.qty]: 7 } },
        ],
      },
    });
    await ok("POST", `/table/${b.tableId}/rows/delete`, { token: t.editor.token, body: { ids: [ids[2]] } });
    const entries = direct((await follow(b.tableId, start, 2)).entries);
    expect(entries.map((e) => [e.kind, e.recordId, e.changes])).toEqual([
      ["row.created", ids[0], { [b.qty]: { before: null, after: 1 } }],
      ["row.created", ids[1], { [b.qty]: { before: null, after: 2 } }],
      ["row.created", ids[2], {}],
      ["row.updated", ids[1], { [b.qty]: { before: 2, after: 7 } }],
      ["row.deleted", ids[2], undefined],
    ]);
  });

  it("a formula cell the write recomputed is recorded as derived", async () => {
    const start = (await ok("GET", `/changes?tableId=${b.tableId}&cursor=latest`, { token: t.owner.token })).nextCursor;
    const id = b.rowIds[1]!;
    const before = (await ok("GET", `/table/row/${id}`, { token: t.owner.token })).data;
    await ok("PUT", `/table/row/${id}/cell/${b.price}`, { token: t.editor.token, body: { data: 3 } });
    const { entries } = await follow(b.tableId, start);
    const qty = before.cells?.[b.qty] ?? 9;
    expect(entries.map((e) => [e.kind, e.recordId, e.changes])).toEqual([
      ["row.updated", id, { [b.price]: { before: 2, after: 3 } }],
      ["row.updated", id, { [b.total]: { before: qty * 2, after: qty * 3, derived: true } }],
    ]);
    expect(entries[1].actor).toEqual({ type: "system" });
  });

  it("a batch the database refuses records nothing", async () => {
    const start = (await ok("GET", `/changes?tableId=${b.tableId}&cursor=latest`, { token: t.owner.token })).nextCursor;
    const [r0, r1] = b.rowIds as [string, string];
    // A trigger standing in for any failure inside D1 (a fence, a constraint) on the second row's cell.
    await shardD1(b.tableId)
      .prepare(
        `CREATE TRIGGER fail_changes_batch BEFORE UPDATE ON cells WHEN NEW.row_id = '${r1}' AND NEW.data = '123' BEGIN SELECT RAISE(ABORT, 'boom'); END`,
      )
      .run();
    try {
      const res = await call("PATCH", `/table/${b.tableId}/rows`, {
        token: t.editor.token,
        body: {
          rows: [
            { _id: r0, cells: { [b.qty]: 122 } },
            { _id: r1, cells: { [b.qty]: 123 } },
          ],
        },
      });
      expect(res.status).toBe(500);
    } finally {
      await shardD1(b.tableId).prepare("DROP TRIGGER fail_changes_batch").run();
    }
    expect((await follow(b.tableId, start)).entries).toEqual([]);
  });

  it("a cursor followed again sees nothing twice; latest starts at the end", async () => {
    const first = await follow(b.tableId);
    const again = await follow(b.tableId, first.cursor);
    expect(again.entries).toEqual([]);
    const latest = await ok("GET", `/changes?tableId=${b.tableId}&cursor=latest`, { token: t.owner.token });
    expect(latest.data).toEqual([]);
    await ok("PUT", `/table/row/${b.rowIds[0]}/cell/${b.price}`, { token: t.editor.token, body: { data: 11 } });
    const after = await ok("GET", `/changes?tableId=${b.tableId}&cursor=${latest.nextCursor}`, {
      token: t.owner.token,
    });
    expect(direct(after.data).map((e: any) => [e.kind, e.changes])).toEqual([
      ["row.updated", { [b.price]: { before: 2, after: 11 } }],
    ]);
  });

  it("a new document is recorded in its project's feed (document.created), not in a table's", async () => {
    const start = (await ok("GET", `/changes?projectId=${t.projectId}&cursor=latest`, { token: t.owner.token }))
      .nextCursor;
    const doc = await ok("POST", "/document", {
      token: t.editor.token,
      body: { projectId: t.projectId, parentId: t.folderId, name: "Logged", type: "DOCUMENT" },
    });
    const page = await ok("GET", `/changes?projectId=${t.projectId}&cursor=${start}`, { token: t.viewer.token });
    expect(page.data).toEqual([
      expect.objectContaining({
        kind: "document.created",
        recordId: doc.data._id,
        projectId: t.projectId,
        actor: expect.objectContaining({ type: "user", userId: t.editor.id }),
        changes: {
          name: { before: null, after: "Logged" },
          type: { before: null, after: "DOCUMENT" },
          parentId: { before: null, after: t.folderId },
        },
      }),
    ]);
    expect(page.data[0].tableId).toBeUndefined();
  });

  it("cursor=latest on a scope with no entries yet hands out a cursor the feed takes back", async () => {
    const table = (
      await ok("POST", "/table", { token: t.owner.token, body: { projectId: t.projectId, name: "Empty" } })
    ).data;
    const start = await ok("GET", `/changes?tableId=${table._id}&cursor=latest`, { token: t.owner.token });
    expect(start.data).toEqual([]);
    const next = await ok("GET", `/changes?tableId=${table._id}&cursor=${start.nextCursor}`, { token: t.owner.token });
    expect(next.data).toEqual([]);
  });

  it("project and workspace scopes; viewers read, outsiders get 404; exactly one scope", async () => {
    for (const q of [`projectId=${t.projectId}`, `workspaceId=${t.workspaceId}`, `tableId=${b.tableId}`]) {
      const page = await ok("GET", `/changes?${q}&limit=1000`, { token: t.viewer.token });
      expect(page.data.some((e: any) => e.tableId === b.tableId)).toBe(true);
      expectError(await feed(q, t.outsider.token), 404, "NotFoundError");
    }
    expectError(await feed(`projectId=${t.projectId}&tableId=${b.tableId}`), 400, "ValidationError");
    expectError(await feed(""), 400, "ValidationError");
    expectError(await feed(`tableId=${b.tableId}&cursor=nonsense`), 400, "ValidationError");
  });

  it("retention: a cursor older than 30 days is 410 with the oldest kept cursor; the tick prunes old entries", async () => {
    const page = await ok("GET", `/changes?tableId=${b.tableId}&limit=1`, { token: t.owner.token });
    const [seq, recordId] = atob(page.nextCursor.replace(/-/g, "+").replace(/_/g, "/")).split(".");
    const old = btoa(`${seq}.${recordId}.${Date.now() - 31 * 86_400_000}`)
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
    const gone = await feed(`tableId=${b.tableId}&cursor=${old}`);
    expectError(gone, 410, "GoneError");
    const oldest = gone.body.details[0].oldestCursor;
    const fromOldest = await ok("GET", `/changes?tableId=${b.tableId}&limit=1000&cursor=${oldest}`, {
      token: t.owner.token,
    });
    const all = await ok("GET", `/changes?tableId=${b.tableId}&limit=1000`, { token: t.owner.token });
    const strip = (list: any[]) => list.map(({ cursor: _, ...e }) => e);
    expect(strip(fromOldest.data)).toEqual(strip(all.data));
    // An entry 31 days old (written here by hand) goes at the next tick; today's stay.
    await shardD1(b.tableId)
      .prepare(
        `INSERT INTO change_log (seq, record_id, at, kind, organization_id, workspace_id, project_id, table_id, actor, source)
         VALUES (0, 'old-entry', ?1, 'row.deleted', ?2, ?3, ?4, ?5, '{"type":"system"}', 'api')`,
      )
      .bind(Date.now() - 31 * 86_400_000, t.organizationId, t.workspaceId, t.projectId, b.tableId)
      .run();
    const withOld = await ok("GET", `/changes?tableId=${b.tableId}&limit=1000`, { token: t.owner.token });
    expect(withOld.data[0].recordId).toBe("old-entry");
    expect(await pruneChangeLog(env, Date.now())).toBeGreaterThanOrEqual(1);
    const after = await ok("GET", `/changes?tableId=${b.tableId}&limit=1000`, { token: t.owner.token });
    expect(strip(after.data)).toEqual(strip(all.data));
  });
});

describe("GET /changes: comment.* entries", () => {
  const latest = async (q: string) =>
    (await ok("GET", `/changes?${q}&cursor=latest`, { token: t.owner.token })).nextCursor;

  it("a document comment created, replied to, edited, resolved, reopened and deleted, in order with before and after; no-ops record nothing", async () => {
    const start = await latest(`projectId=${t.projectId}`);
    const editor = { token: t.editor.token };
    const root = (await ok("POST", `/document/${t.docId}/comment`, { ...editor, body: { body: "First" } })).data;
    const reply = (await ok("POST", `/comment/${root._id}/reply`, { ...editor, body: { body: "Answer" } })).data;
    await ok("PATCH", `/comment/${root._id}`, { ...editor, body: { body: "First, edited" } });
    await ok("PATCH", `/comment/${root._id}`, { ...editor, body: { body: "First, edited" } });
    await ok("POST", `/comment/${reply._id}/resolve`, editor);
    await ok("POST", `/comment/${root._id}/resolve`, editor);
    await ok("POST", `/comment/${root._id}/reopen`, editor);
    await ok("PUT", `/comment/${root._id}/reaction/${encodeURIComponent("👍")}`, editor);
    await ok("PUT", `/comment/${root._id}/reaction/${encodeURIComponent("👍")}`, editor);
    await ok("DELETE", `/comment/${root._id}/reaction/${encodeURIComponent("👍")}`, editor);
    await ok("DELETE", `/comment/${reply._id}`, editor);
    await ok("DELETE", `/comment/${reply._id}`, editor);
    const page = await ok("GET", `/changes?projectId=${t.projectId}&cursor=${start}`, { token: t.viewer.token });
    expect(page.data.map((e: any) => [e.kind, e.recordId, e.changes])).toEqual([
      ["comment.created", root._id, { body: { before: null, after: "First" } }],
      [
        "comment.created",
        reply._id,
        { body: { before: null, after: "Answer" }, parentId: { before: null, after: root._id } },
      ],
      ["comment.updated", root._id, { body: { before: "First", after: "First, edited" } }],
      ["comment.resolved", root._id, { status: { before: "open", after: "resolved" } }],
      ["comment.reopened", root._id, { status: { before: "resolved", after: "open" } }],
      ["comment.updated", root._id, { reactions: { before: null, after: { emoji: "👍", userId: t.editor.id } } }],
      ["comment.updated", root._id, { reactions: { before: { emoji: "👍", userId: t.editor.id }, after: null } }],
      ["comment.deleted", reply._id, { isDeleted: { before: false, after: true } }],
    ]);
    expect(page.data[0]).toMatchObject({
      organizationId: t.organizationId,
      workspaceId: t.workspaceId,
      projectId: t.projectId,
      actor: { type: "user", userId: t.editor.id, tokenId: expect.any(String) },
      source: "api",
    });
    expect(page.data[0].tableId).toBeUndefined();
  });

  it("a row comment is in its table's feed; a refused write records nothing", async () => {
    const start = await latest(`tableId=${b.tableId}`);
    const rowId = b.rowIds[0]!;
    const c = (await ok("POST", `/table/row/${rowId}/comment`, { token: t.editor.token, body: { body: "On a row" } }))
      .data;
    // Not the author: 403, nothing written, nothing recorded.
    expectError(
      await call("PATCH", `/comment/${c._id}`, { token: t.owner.token, body: { body: "Not mine" } }),
      403,
      "ForbiddenError",
    );
    const page = await ok("GET", `/changes?tableId=${b.tableId}&cursor=${start}`, { token: t.viewer.token });
    expect(direct(page.data)).toEqual([
      expect.objectContaining({
        kind: "comment.created",
        recordId: c._id,
        workspaceId: t.workspaceId,
        projectId: t.projectId,
        tableId: b.tableId,
        changes: { body: { before: null, after: "On a row" } },
      }),
    ]);
  });
});
