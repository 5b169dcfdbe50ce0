/// <reference types="vite/client" />
/**
 * GET /search and the reader site's search against another tenant on the same shard database (docs/api-guide.md ›
 * Search › Ranking; docs/security-review.md, third pass): the order and scores of a caller's hits, the records
 * walked and the query's cost never depend on records the caller cannot read — other tenants' records, deleted
 * records, the text of deleted columns.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { shardBindingOfId } from "../../../src/tenancy/kernel/ids";
import { MAX_CANDIDATES } from "../../../src/services/search/rank";
import { call, expectError, ok, registerUser, type RegisteredUser } from "../../support/harness";
import { shardD1 } from "../../support/shards";
import { addColumn, addRow, bulkRows, makeTable } from "../../support/tableHarness";
import { para } from "../../support/collab-peer";

const word = (stem: string) =>
  `${stem}${crypto
    .randomUUID()
    .replace(/[^a-f]/g, "")
    .slice(0, 10)}`;

/** A user whose organization is on the same shard database as `beside`'s (new organizations land where placement puts them). */
async function userBeside(beside: RegisteredUser): Promise<RegisteredUser> {
  for (let i = 0; i < 40; i++) {
    const user = await registerUser("Stranger");
    if (shardBindingOfId(user.organizationId) === shardBindingOfId(beside.organizationId)) return user;
  }
  throw new Error("no organization landed on the victim's shard database in 40 tries");
}

async function projectOf(user: RegisteredUser, name = "Project"): Promise<string> {
  return (await ok("POST", "/project", { token: user.token, body: { workspaceId: user.workspaceId, name } })).data._id;
}

async function docWith(user: RegisteredUser, projectId: string, name: string, text: string): Promise<string> {
  const id = (await ok("POST", "/document", { token: user.token, body: { projectId, name, type: "DOCUMENT" } })).data
    ._id as string;
  await ok("PUT", `/document/${id}/content`, { token: user.token, body: { blocks: [para("b0", text)] } });
  return id;
}

const hits = async (token: string, q: string, query: Record<string, string> = {}) => {
  const res = await call("GET", "/search", { token, query: { q, ...query } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { _id: string; score: number }[];
};

/** How many entries of the full-text index hold `w`, counted in the database of `id` (whoever may read them). */
async function indexed(id: string, w: string): Promise<number> {
  const row = await shardD1(id)
    .prepare(`SELECT count(*) AS n FROM search_fts WHERE search_fts MATCH ?`)
    .bind(`"${w}"`)
    .first<{ n: number }>();
  return row!.n;
}

let victim: RegisteredUser;
let stranger: RegisteredUser;
let victimProject: string;
let strangerProject: string;
beforeAll(async () => {
  victim = await registerUser("Victim");
  stranger = await userBeside(victim);
  [victimProject, strangerProject] = await Promise.all([projectOf(victim), projectOf(stranger)]);
});

describe("search ranking across tenants", () => {
  it("orders and scores a stranger's own hits the same whether another tenant's records hold the word or not", async () => {
    const secret = word("salary");
    const nonce = word("nonce");
    // The probe (holding the word) first, the control (a fresh word) second, same length.
    const table = await makeTable(stranger.token, strangerProject, "Probe");
    const { row: probe } = await addRow(stranger.token, table.tableId, { [table.nameColumnId]: `${secret}` });
    const { row: control } = await addRow(stranger.token, table.tableId, {
      [table.nameColumnId]: `${nonce.padEnd(secret.length, "x")}`,
    });
    await addRow(stranger.token, table.tableId, {
      [table.nameColumnId]: `${nonce.padEnd(secret.length, "x")} ${"filler ".repeat(3)}`,
    });
    const q = `${nonce.padEnd(secret.length, "x")} OR ${secret}`;
    const before = await hits(stranger.token, q, { projectId: strangerProject });

    // The victim writes the word many times over, in records the stranger cannot read.
    for (let i = 0; i < 6; i++) await docWith(victim, victimProject, `Payroll ${i}`, `${secret} `.repeat(20 + i));
    const after = await hits(stranger.token, q, { projectId: strangerProject });
    expect(after.slice(0, 2).map((h) => h._id)).toEqual([probe._id, control._id]);
    expect(after).toEqual(before);
    // Equal text, equal score: nothing outside the record moves it.
    expect(after[0]!.score).toBe(after[1]!.score);
    expect(after[0]!.score).toBeGreaterThan(0);
  });

  it("ranks by the record's own matches: a title match above body matches, more matches above fewer", async () => {
    const w = word("rank");
    const titled = await docWith(stranger, strangerProject, `About ${w}`, "nothing here");
    const twice = await docWith(stranger, strangerProject, "Notes", `${w} and ${w} again`);
    const once = await docWith(stranger, strangerProject, "Notes", `${w} once only`);
    const found = await hits(stranger.token, w, { projectId: strangerProject });
    expect(found.map((h) => h._id)).toEqual([titled, twice, once]);
    expect(found[0]!.score).toBeGreaterThan(found[1]!.score);
    expect(found[1]!.score).toBeGreaterThan(found[2]!.score);
  });

  it("takes a deleted document's words out of the index, and puts them back when it is restored", async () => {
    const w = word("gone");
    const doc = await docWith(victim, victimProject, `Title ${w}`, `body ${w}`);
    expect(await indexed(doc, w)).toBe(1);
    await ok("DELETE", `/document/${doc}`, { token: victim.token });
    expect(await indexed(doc, w)).toBe(0);
    await ok("POST", `/document/${doc}/restore`, { token: victim.token });
    expect(await indexed(doc, w)).toBe(1);
    expect((await hits(victim.token, w)).map((h) => h._id)).toEqual([doc]);
  });

  it("takes a deleted row's words out of the index", async () => {
    const w = word("rowgone");
    const table = await makeTable(victim.token, victimProject, "Rows");
    const { row } = await addRow(victim.token, table.tableId, { [table.nameColumnId]: `Row ${w}` });
    expect(await indexed(row._id, w)).toBe(1);
    await ok("DELETE", `/table/row/${row._id}`, { token: victim.token });
    expect(await indexed(row._id, w)).toBe(0);
  });

  it("stops finding the text of a deleted column, snippet included", async () => {
    const w = word("wombat");
    const table = await makeTable(victim.token, victimProject, "Staff");
    const notes = await addColumn(victim.token, table.tableId, "Notes", { type: "text" });
    const { row } = await addRow(victim.token, table.tableId, {
      [table.nameColumnId]: "Alice",
      [notes._id]: `${w} payroll secret`,
    });
    expect((await hits(victim.token, w)).map((h) => h._id)).toEqual([row._id]);
    await ok("DELETE", `/table/column/${notes._id}`, { token: victim.token });
    expect(await hits(victim.token, w)).toEqual([]);
    expect(await indexed(row._id, w)).toBe(0);
    const byName = await call("GET", "/search", {
      token: victim.token,
      query: { q: "Alice", projectId: victimProject, type: "row" },
    });
    expect(JSON.stringify(byName.body)).not.toContain(w);
  });
});

describe("search cost bounds", () => {
  it("refuses short prefixes and too many prefixes with 422, before touching the index", async () => {
    const many = "abcdefghijklmnopqrstuvwxyz012345"
      .split("")
      .map((c) => `${c}*`)
      .join(" OR ");
    for (const q of [many, "a*", "ab*", '"the ab"*', "abc* OR abd* OR abe* OR abf* OR abg*"]) {
      expectError(
        await call("GET", "/search", { token: stranger.token, query: { q } }),
        422,
        "UnprocessableEntityError",
      );
    }
    expect(await hits(stranger.token, "abc* OR abd* OR abe* OR abf*")).toBeInstanceOf(Array);
  });

  it(`answers 422 "too broad" past ${MAX_CANDIDATES} matching records it may read, rather than ranking them all`, async () => {
    const w = word("broad");
    const table = await makeTable(stranger.token, strangerProject, "Broad");
    const rows = Array.from({ length: 1000 }, (_, i) => ({ [table.nameColumnId]: `${w} ${i}` }));
    for (let i = 0; i < Math.ceil((MAX_CANDIDATES + 1) / 1000); i++)
      await bulkRows(stranger.token, table.tableId, rows);
    const res = await call("GET", "/search", { token: stranger.token, query: { q: w, projectId: strangerProject } });
    expectError(res, 422, "UnprocessableEntityError");
    expect(res.body.message).toMatch(/too broad/);
    // Narrowed by another word, the same records rank.
    expect((await hits(stranger.token, `${w} 999`, { projectId: strangerProject })).length).toBeGreaterThan(0);
    // Another tenant's matching records do not count against the stranger's budget.
    expect(await hits(victim.token, w)).toEqual([]);
  });
});

const searchSources = import.meta.glob("../../../src/services/search/*.ts", {
  query: "?raw",
  import: "default",
  eager: true,
}) as Record<string, string>;

describe("GET /search: one rule set for who reads what", () => {
  it("reaches records through src/auth (reach.ts over access.ts's rules), naming no grant or membership table itself", () => {
    expect(Object.keys(searchSources).length).toBeGreaterThan(3);
    const own = Object.entries(searchSources)
      .filter(([, text]) => /\b(workspace_collaborators|document_collaborators)\b/.test(text))
      .map(([path]) => path);
    expect(own).toEqual([]);
    expect(searchSources["../../../src/services/search/search.ts"]).toMatch(/from "..\/..\/auth\/reach"/);
  });
});
