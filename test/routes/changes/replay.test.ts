/**
 * The change log as a property (docs/api-guide.md › Changes, history and audit): over random sequences of row
 * writes, replaying the feed from the start of a table rebuilds exactly the table's rows and values, each entry
 * is seen once, and a write that changes nothing adds no entry. The same over random document writes (create,
 * rename, move, delete, restore, content) and a project's feed: its live documents with their names, parents and
 * content versions.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { call, ok, seedTenant, type Tenant } from "../../support/harness";
import { addColumn, allRows, makeTable } from "../../support/tableHarness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

type Op =
  | { op: "create"; n: number }
  | { op: "put"; row: number; n: number }
  | { op: "patch"; row: number; n: number; name: string }
  | { op: "bulk"; rows: [number, number]; n: number }
  // Large writes, whose entries are staged and folded (src/services/changes/staged.ts): 110 rows created at once,
  // and every live row patched at once (two cells each).
  | { op: "many"; n: number }
  | { op: "all"; n: number; name: string }
  | { op: "delete"; row: number }
  | { op: "restore"; row: number };

const small = fc.integer({ min: 0, max: 2 });
const pick = fc.nat(50);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant("create" as const), n: small }),
  fc.record({ op: fc.constant("put" as const), row: pick, n: small }),
  fc.record({ op: fc.constant("patch" as const), row: pick, n: small, name: fc.constantFrom("a", "b") }),
  fc.record({ op: fc.constant("bulk" as const), rows: fc.tuple(pick, pick), n: small }),
  fc.record({ op: fc.constant("many" as const), n: small }),
  fc.record({ op: fc.constant("all" as const), n: small, name: fc.constantFrom("a", "b") }),
  fc.record({ op: fc.constant("delete" as const), row: pick }),
  fc.record({ op: fc.constant("restore" as const), row: pick }),
);

interface Table {
  tableId: string;
  name: string;
  n: string;
  live: string[];
  deleted: string[];
}

async function apply(tb: Table, o: Op, token: string) {
  const live = (i: number) => tb.live[i % tb.live.length];
  if (o.op === "create") {
    const r = await ok("POST", `/table/${tb.tableId}/row`, { token, body: { cells: { [tb.n]: o.n } } });
    tb.live.push(r.data.row._id);
  } else if (o.op === "many") {
    const r = await ok("POST", `/table/${tb.tableId}/rows`, {
      token,
      body: { rows: Array.from({ length: 110 }, () => ({ cells: { [tb.n]: o.n } })) },
    });
    tb.live.push(...r.data.rows.map((x: { _id: string }) => x._id));
  } else if (o.op === "all") {
    if (tb.live.length === 0) return;
    await ok("PATCH", `/table/${tb.tableId}/rows`, {
      token,
      body: { rows: tb.live.slice(0, 1000).map((_id) => ({ _id, cells: { [tb.n]: o.n, [tb.name]: o.name } })) },
    });
  } else if (o.op === "restore") {
    const id = tb.deleted[o.row % Math.max(1, tb.deleted.length)];
    if (!id) return;
    await ok("POST", `/table/${tb.tableId}/rows/restore`, { token, body: { ids: [id] } });
    tb.deleted = tb.deleted.filter((x) => x !== id);
    tb.live.push(id);
  } else {
    if (tb.live.length === 0) return;
    if (o.op === "put") await ok("PUT", `/table/row/${live(o.row)}/cell/${tb.n}`, { token, body: { data: o.n } });
    if (o.op === "patch")
      await ok("PATCH", `/table/row/${live(o.row)}`, { token, body: { cells: { [tb.n]: o.n, [tb.name]: o.name } } });
    if (o.op === "bulk") {
      const ids = [...new Set(o.rows.map(live))];
      await ok("PATCH", `/table/${tb.tableId}/rows`, {
        token,
        body: { rows: ids.map((_id) => ({ _id, cells: { [tb.n]: o.n } })) },
      });
    }
    if (o.op === "delete") {
      const id = live(o.row)!;
      expect((await call("DELETE", `/table/row/${id}`, { token })).status).toBe(200);
      tb.live = tb.live.filter((x) => x !== id);
      tb.deleted.push(id);
    }
  }
}

/** The rows the feed describes: live rows by id with their non-null values. */
async function replay(tableId: string, token: string) {
  const state = new Map<string, { deleted: boolean; cells: Record<string, unknown> }>();
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = await ok("GET", `/changes?tableId=${tableId}&limit=61${cursor ? `&cursor=${cursor}` : ""}`, { token });
    for (const e of page.data) {
      const key = `${e.recordId}@${e.cursor.slice(0, 20)}:${JSON.stringify(e.changes)}:${e.kind}:${e.at}`;
      expect(seen.has(key)).toBe(false);
      seen.add(key);
      // The table's own entries (table.created, column.created…) are in its feed too; rows are rebuilt from row.*.
      if (!e.kind.startsWith("row.")) continue;
      const row = state.get(e.recordId) ?? { deleted: false, cells: {} };
      if (e.kind === "row.deleted") row.deleted = true;
      if (e.kind === "row.restored") row.deleted = false;
      for (const [col, c] of Object.entries<any>(e.changes ?? {})) {
        if (e.kind === "row.updated") expect(c.before ?? null).toEqual(row.cells[col] ?? null);
        if (c.after === null) delete row.cells[col];
        else row.cells[col] = c.after;
      }
      state.set(e.recordId, row);
    }
    if (page.data.length === 0) break;
    cursor = page.nextCursor;
  }
  return new Map([...state].filter(([, r]) => !r.deleted).map(([id, r]) => [id, r.cells]));
}

const nonNull = (cells: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(cells).filter(([, v]) => v !== null && v !== undefined));

describe("replaying the change feed", () => {
  it("rebuilds the table after any sequence of row writes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 25 }), async (ops) => {
        const token = t.editor.token;
        const made = await makeTable(t.owner.token, t.projectId, "Replay");
        const n = (await addColumn(t.owner.token, made.tableId, "N", { type: "number" }))._id;
        const tb: Table = { tableId: made.tableId, name: made.nameColumnId, n, live: [], deleted: [] };
        for (const o of ops) await apply(tb, o, token);
        const rebuilt = await replay(tb.tableId, t.owner.token);
        const rows = await allRows(t.owner.token, tb.tableId);
        expect(new Map(rows.map((r) => [r._id, nonNull(r.cells)]))).toEqual(rebuilt);
      }),
      { numRuns: 4 },
    );
  });
});

type DocOp =
  | { op: "create"; folder: boolean; parent: number; name: string }
  | { op: "rename"; doc: number; name: string }
  | { op: "move"; doc: number; parent: number }
  | { op: "delete"; doc: number }
  | { op: "restore"; doc: number }
  | { op: "content"; doc: number };

const docName = fc.constantFrom("a", "b");
const docOpArb: fc.Arbitrary<DocOp> = fc.oneof(
  fc.record({ op: fc.constant("create" as const), folder: fc.boolean(), parent: pick, name: docName }),
  fc.record({ op: fc.constant("rename" as const), doc: pick, name: docName }),
  fc.record({ op: fc.constant("move" as const), doc: pick, parent: pick }),
  fc.record({ op: fc.constant("delete" as const), doc: pick }),
  fc.record({ op: fc.constant("restore" as const), doc: pick }),
  fc.record({ op: fc.constant("content" as const), doc: pick }),
);

/** Applies `o` to the project's documents (`docs`: every id made, `folders` among them); refusals are fine. */
async function applyDoc(projectId: string, docs: string[], folders: Set<string>, o: DocOp, token: string) {
  const at = (i: number) => docs[i % docs.length]!;
  // A parent from the folders made (or the root, as index 0): a move may be refused (into itself, a deleted folder).
  const parentOf = (i: number) => {
    const list = [null, ...folders];
    return list[i % list.length] ?? null;
  };
  if (o.op === "create") {
    const body = { projectId, parentId: parentOf(o.parent), name: o.name, type: o.folder ? "FOLDER" : "DOCUMENT" };
    const res = await call("POST", "/document", { token, body });
    if (res.status !== 200) return expect(res.status).toBe(404);
    docs.push(res.body.data._id);
    if (o.folder) folders.add(res.body.data._id);
    return;
  }
  if (!docs.length) return;
  const id = at(o.doc);
  const res =
    o.op === "rename"
      ? await call("PATCH", `/document/${id}`, { token, body: { name: o.name } })
      : o.op === "move"
        ? await call("PATCH", `/document/${id}`, { token, body: { parentId: parentOf(o.parent) } })
        : o.op === "delete"
          ? await call("DELETE", `/document/${id}`, { token })
          : o.op === "restore"
            ? await call("POST", `/document/${id}/restore`, { token })
            : folders.has(id)
              ? { status: 200 }
              : await call("PUT", `/document/${id}/content`, { token, body: { blocks: [] } });
  // Refusals (a deleted document, a move into its own subtree) change nothing; nothing else may fail.
  expect([200, 404, 409, 400]).toContain(res.status);
}

/** The documents the project's feed describes: live ones by id with name, parent and content version. */
async function replayDocuments(projectId: string, token: string) {
  const state = new Map<string, { name: string; parentId: string | null; deleted: boolean; version: number }>();
  let cursor: string | undefined;
  for (;;) {
    const page = await ok("GET", `/changes?projectId=${projectId}&limit=9${cursor ? `&cursor=${cursor}` : ""}`, {
      token,
    });
    for (const e of page.data) {
      const c = e.changes ?? {};
      if (e.kind === "document.created") {
        state.set(e.recordId, { name: c.name.after, parentId: c.parentId.after, deleted: false, version: 0 });
        continue;
      }
      const doc = state.get(e.recordId)!;
      expect(doc, `${e.kind} of a document never created`).toBeDefined();
      if (e.kind === "document.updated") {
        expect(c.name.before).toBe(doc.name);
        doc.name = c.name.after;
      }
      if (e.kind === "document.moved") {
        expect(c.parentId.before).toBe(doc.parentId);
        doc.parentId = c.parentId.after;
      }
      if (e.kind === "document.deleted") doc.deleted = true;
      if (e.kind === "document.restored") doc.deleted = false;
      if (e.kind === "document.content") {
        expect(c.content.before?.version ?? 0).toBe(doc.version);
        doc.version = c.content.after.version;
      }
    }
    if (page.data.length === 0) break;
    cursor = page.nextCursor;
  }
  return new Map(
    [...state]
      .filter(([, d]) => !d.deleted)
      .map(([id, d]) => [id, { name: d.name, parentId: d.parentId, version: d.version }]),
  );
}

describe("replaying the change feed of documents", () => {
  it("rebuilds the project's documents after any sequence of document writes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(docOpArb, { minLength: 5, maxLength: 20 }), async (ops) => {
        const token = t.editor.token;
        const project = await ok("POST", "/project", {
          token: t.owner.token,
          body: { workspaceId: t.workspaceId, name: "Replay documents" },
        });
        const projectId = project.data._id as string;
        const docs: string[] = [];
        const folders = new Set<string>();
        for (const o of ops) await applyDoc(projectId, docs, folders, o, token);
        const rebuilt = await replayDocuments(projectId, t.owner.token);
        const listed = (await ok("GET", `/document/all/${projectId}`, { token: t.owner.token })).data as any[];
        const actual = new Map<string, unknown>();
        for (const d of listed) {
          const content = await call("GET", `/document/${d._id}/content`, { token: t.owner.token });
          const version =
            d.type === "FOLDER" ? 0 : Number(/content-v(\d+)/.exec(content.headers.get("etag") ?? "")?.[1]);
          actual.set(d._id, { name: d.name, parentId: d.parentId ?? null, version });
        }
        expect(actual).toEqual(rebuilt);
      }),
      { numRuns: 4 },
    );
  });
});
