/**
 * No lost updates, no orphans (docs/api-guide.md, "HTTP semantics"): concurrent PATCHes of different members from
 * two tokens both take effect; of concurrent PATCHes that carry the same If-Match exactly one wins (the others 412);
 * nothing created under a parent that is being deleted stays live under it.
 */
import { beforeAll, describe, expect, it } from "vitest";
import {
  addWorkspaceCollaborator,
  call,
  ok,
  registerUser,
  seedTenant,
  type RegisteredUser,
  type Tenant,
} from "../support/harness";
import { shardD1 } from "../support/shards";
import { addColumn, makeTable } from "../support/tableHarness";

const TRIALS = 20;

describe("no lost updates: concurrent PATCHes of different members", () => {
  let t: Tenant;
  let admin: RegisteredUser;

  beforeAll(async () => {
    t = await seedTenant();
    admin = await registerUser("Admin");
    await addWorkspaceCollaborator(t.owner, t.workspaceId, admin, "admin");
  });

  /** Two PATCHes at once, each naming one member, `TRIALS` times; after each, both members hold what was sent. */
  async function race(
    path: string,
    tokens: [string, string],
    bodies: (i: number) => [object, object],
    read: () => Promise<any>,
    expected: (i: number) => object,
  ) {
    let lost = 0;
    for (let i = 0; i < TRIALS; i++) {
      const [a, b] = bodies(i);
      const [ra, rb] = await Promise.all([
        call("PATCH", path, { token: tokens[0], body: a }),
        call("PATCH", path, { token: tokens[1], body: b }),
      ]);
      expect([ra.status, rb.status], JSON.stringify([ra.body, rb.body])).toEqual([200, 200]);
      const now = await read();
      try {
        expect(now).toMatchObject(expected(i));
      } catch {
        lost += 1;
      }
    }
    expect(lost, "trials that lost one of the two changes").toBe(0);
  }

  it("documents", async () => {
    const path = `/document/${t.docId}`;
    await race(
      path,
      [t.owner.token, t.editor.token],
      (i) => [{ name: `Name ${i}` }, { description: `Description ${i}` }],
      async () => (await ok("GET", path, { token: t.owner.token })).data,
      (i) => ({ name: `Name ${i}`, description: `Description ${i}` }),
    );
  });

  it("projects", async () => {
    const path = `/project/${t.projectId}`;
    await race(
      path,
      [t.owner.token, t.editor.token],
      (i) => [{ name: `Project ${i}` }, { reference: `REF-${i}` }],
      async () => (await ok("GET", path, { token: t.owner.token })).data,
      (i) => ({ name: `Project ${i}`, reference: `REF-${i}` }),
    );
  });

  it("workspaces", async () => {
    const path = `/workspace/${t.workspaceId}`;
    await race(
      path,
      [t.owner.token, admin.token],
      (i) => [{ name: `Workspace ${i}` }, { description: `About ${i}` }],
      async () => (await ok("GET", path, { token: t.owner.token })).data,
      (i) => ({ name: `Workspace ${i}`, description: `About ${i}` }),
    );
  });

  it("columns", async () => {
    const table = await makeTable(t.owner.token, t.projectId, "Race");
    const column = await addColumn(t.owner.token, table.tableId, "Amount", { type: "number" });
    const path = `/table/column/${column._id}`;
    await race(
      path,
      [t.owner.token, t.editor.token],
      (i) => [{ name: `Amount ${i}` }, { description: `In euros ${i}` }],
      async () =>
        (await ok("GET", `/table/columns/${table.tableId}`, { token: t.owner.token })).data.find(
          (c: any) => c._id === column._id,
        ),
      (i) => ({ name: `Amount ${i}`, description: `In euros ${i}` }),
    );
  });

  it("published entries", async () => {
    const slug = `race-${Date.now().toString(36)}`;
    await ok("POST", `/project/${t.projectId}/publish`, { token: t.owner.token, body: { slug } });
    const path = `/project/${t.projectId}/publish/${slug}`;
    await race(
      path,
      [t.owner.token, admin.token],
      (i) => [{ disabled: i % 2 === 0 }, { homepage: i % 2 === 0 ? t.docId : t.doc2Id }],
      async () =>
        (await ok("GET", `/project/${t.projectId}`, { token: t.owner.token })).data.published.find(
          (e: any) => e.slug === slug,
        ),
      (i) => ({ disabled: i % 2 === 0, homepage: i % 2 === 0 ? t.docId : t.doc2Id }),
    );
  });
});

describe("If-Match is a compare-and-set: of concurrent PATCHes with the same ETag exactly one wins", () => {
  let t: Tenant;
  let admin: RegisteredUser;

  beforeAll(async () => {
    t = await seedTenant();
    admin = await registerUser("Admin");
    await addWorkspaceCollaborator(t.owner, t.workspaceId, admin, "admin");
  });

  async function casRace(path: string, get: string, tokens: string[], body: (i: number) => object) {
    for (let trial = 0; trial < 5; trial++) {
      const etag = (await call("GET", get, { token: tokens[0] })).headers.get("etag")!;
      expect(etag).toBeTruthy();
      const results = await Promise.all(
        tokens.map((token, i) =>
          call("PATCH", path, { token, body: body(trial * 10 + i), headers: { "if-match": etag } }),
        ),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses, JSON.stringify(results.map((r) => r.body))).toEqual([
        200,
        ...Array(tokens.length - 1).fill(412),
      ]);
    }
  }

  it("documents", async () => {
    await casRace(
      `/document/${t.docId}`,
      `/document/${t.docId}`,
      [t.owner.token, t.editor.token, t.owner.token, t.editor.token],
      (i) => ({ name: `Doc ${i}` }),
    );
  });

  it("projects", async () => {
    await casRace(
      `/project/${t.projectId}`,
      `/project/${t.projectId}`,
      [t.owner.token, t.editor.token, t.owner.token],
      (i) => ({ name: `P ${i}` }),
    );
  });

  it("workspaces", async () => {
    await casRace(
      `/workspace/${t.workspaceId}`,
      `/workspace/${t.workspaceId}`,
      [t.owner.token, admin.token, t.owner.token],
      (i) => ({ name: `W ${i}` }),
    );
  });

  it("tables", async () => {
    const table = await makeTable(t.owner.token, t.projectId, "CAS");
    await casRace(
      `/table/${table.tableId}`,
      `/table/${table.tableId}`,
      [t.owner.token, t.editor.token, t.owner.token],
      (i) => ({ name: `T ${i}` }),
    );
  });

  it("a PATCH and a DELETE of a table or column with the same ETag: one wins, the other is 412 (or 404 once deleted)", async () => {
    const oneWins = (statuses: number[]) => {
      const sorted = [...statuses].sort();
      expect(sorted[0]).toBe(200);
      expect([404, 412]).toContain(sorted[1]);
    };
    for (let trial = 0; trial < 5; trial++) {
      const table = await makeTable(t.owner.token, t.projectId, `CAS delete ${trial}`);
      const column = await addColumn(t.owner.token, table.tableId, "Qty", { type: "number" });
      const columnTag = (await call("GET", `/table/columns/${table.tableId}`, { token: t.owner.token })).headers.get(
        "etag",
      )!;
      const columnRace = await Promise.all([
        call("PATCH", `/table/column/${column._id}`, {
          token: t.owner.token,
          body: { description: "x" },
          headers: { "if-match": columnTag },
        }),
        call("DELETE", `/table/column/${column._id}`, { token: t.editor.token, headers: { "if-match": columnTag } }),
      ]);
      oneWins(columnRace.map((r) => r.status));
      const tableTag = (await call("GET", `/table/${table.tableId}`, { token: t.owner.token })).headers.get("etag")!;
      const tableRace = await Promise.all([
        call("PATCH", `/table/${table.tableId}`, {
          token: t.owner.token,
          body: { name: "Renamed" },
          headers: { "if-match": tableTag },
        }),
        call("DELETE", `/table/${table.tableId}`, { token: t.editor.token, headers: { "if-match": tableTag } }),
      ]);
      oneWins(tableRace.map((r) => r.status));
    }
  });

  it("columns", async () => {
    const table = await makeTable(t.owner.token, t.projectId, "CAS columns");
    const column = await addColumn(t.owner.token, table.tableId, "Price", { type: "number" });
    await casRace(
      `/table/column/${column._id}`,
      `/table/columns/${table.tableId}`,
      [t.owner.token, t.editor.token, t.owner.token],
      (i) => ({ description: `D ${i}` }),
    );
  });
});

describe("no orphans: creates racing the delete of their parent", () => {
  let t: Tenant;

  beforeAll(async () => {
    t = await seedTenant();
  });

  it("documents created in a folder being deleted are refused (404, nothing written) or deleted with it", async () => {
    let created = 0;
    for (let round = 0; round < 10; round++) {
      const folder = (
        await ok("POST", "/document", {
          token: t.owner.token,
          body: { projectId: t.projectId, name: `F${round}`, type: "FOLDER" },
        })
      ).data._id as string;
      const creates = Array.from({ length: 20 }, (_, i) =>
        call("POST", "/document", {
          token: i % 2 ? t.editor.token : t.owner.token,
          body: { projectId: t.projectId, parentId: folder, name: `Child ${i}`, type: "DOCUMENT" },
        }),
      );
      const [deleted, ...answers] = await Promise.all([
        call("DELETE", `/document/${folder}`, { token: t.owner.token }),
        ...creates,
      ]);
      expect(deleted.status).toBe(200);
      for (const a of answers) expect([200, 404], JSON.stringify(a.body)).toContain(a.status);
      const ok200 = answers.filter((a) => a.status === 200);
      created += ok200.length;
      const rows = await shardD1(folder)
        .prepare("SELECT id, is_deleted FROM documents WHERE parent_id = ?")
        .bind(folder)
        .all<{ id: string; is_deleted: number }>();
      expect(
        rows.results.filter((r) => !r.is_deleted).map((r) => r.id),
        "live documents under a deleted folder",
      ).toEqual([]);
      // A create that answered an error wrote nothing: every stored child is one that answered 200.
      expect(rows.results.map((r) => r.id).sort()).toEqual(ok200.map((a) => a.body.data._id).sort());
      const collaborators = await shardD1(folder)
        .prepare(
          "SELECT COUNT(*) AS n FROM document_collaborators WHERE document_id IN (SELECT id FROM documents WHERE parent_id = ?)",
        )
        .bind(folder)
        .first<{ n: number }>();
      expect(collaborators!.n).toBe(ok200.length);
      const listed = (await ok("GET", `/document/all/${t.projectId}`, { token: t.owner.token })).data as any[];
      expect(listed.filter((d) => d.parentId === folder)).toEqual([]);
    }
    expect(created).toBeLessThan(200);
  }, 120_000);

  it("rows created in a table being deleted are refused (404, nothing written) or vanish with it", async () => {
    for (let round = 0; round < 5; round++) {
      const table = await makeTable(t.owner.token, t.projectId, `Doomed ${round}`);
      const creates = Array.from({ length: 20 }, (_, i) =>
        call("POST", `/table/${table.tableId}/row`, {
          token: t.owner.token,
          body: { cells: { [table.nameColumnId]: `r${i}` } },
        }),
      );
      const [deleted, ...answers] = await Promise.all([
        call("DELETE", `/table/${table.tableId}`, { token: t.owner.token }),
        ...creates,
      ]);
      expect(deleted.status).toBe(200);
      for (const a of answers) expect([200, 201, 404], JSON.stringify(a.body)).toContain(a.status);
      const succeeded = answers.filter((a) => a.status !== 404).length;
      const stored = await shardD1(table.tableId)
        .prepare("SELECT COUNT(*) AS n FROM rows WHERE table_id = ?")
        .bind(table.tableId)
        .first<{ n: number }>();
      expect(stored!.n, "rows stored against rows answered").toBe(succeeded);
      const cells = await shardD1(table.tableId)
        .prepare("SELECT COUNT(*) AS n FROM cells WHERE table_id = ?")
        .bind(table.tableId)
        .first<{ n: number }>();
      expect(cells!.n).toBe(succeeded);
    }
  }, 120_000);
});
