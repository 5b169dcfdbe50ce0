/// <reference types="vite/client" />
/** search: GET /search (src/routes/search/search.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { shardBindingOfId } from "../../../src/tenancy/kernel/ids";
import { MAX_CANDIDATES } from "../../../src/services/search/rank";
import {
  call,
  expectError,
  ok,
  registerUser,
  type RegisteredUser,
  addWorkspaceCollaborator,
  seedTenant,
  type Tenant,
} from "../../support/harness";
import { shardD1, everyShardD1 } from "../../support/shards";
import { addColumn, addRow, bulkRows, makeTable } from "../../support/tableHarness";
import { para, connect } from "../../support/collab-peer";
import { env } from "cloudflare:test";
import { docxBytes, DOCX_TYPE } from "../../support/content-fixtures";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { ftsExpression } from "../../../src/services/search/query";
import { scopedMatchCtes } from "../../../src/services/search/search";
import { docThread, seedCommentTenant, type CommentTenant } from "../../support/comments";
import { ids, search, searchDocs, word } from "../../support/search";

/**
 * GET /search and the reader site's search against another tenant on the same shard database (docs/api-guide.md ›
 * Search › Ranking; docs/security-review.md, third pass): the order and scores of a caller's hits, the records
 * walked and the query's cost never depend on records the caller cannot read — other tenants' records, deleted
 * records, the text of deleted columns.
 */
describe("isolation", () => {
  /** A user whose organization is on the same shard database as `beside`'s (new organizations land where placement puts them). */
  async function userBeside(beside: RegisteredUser): Promise<RegisteredUser> {
    for (let i = 0; i < 40; i++) {
      const user = await registerUser("Stranger");
      if (shardBindingOfId(user.organizationId) === shardBindingOfId(beside.organizationId)) return user;
    }
    throw new Error("no organization landed on the victim's shard database in 40 tries");
  }

  async function projectOf(user: RegisteredUser, name = "Project"): Promise<string> {
    return (await ok("POST", "/project", { token: user.token, body: { workspaceId: user.workspaceId, name } })).data
      ._id;
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
});

/**
 * GET /search (docs/api-guide.md › Search): ranking, snippets, the query syntax, every access path and its
 * revocation, soft-delete and restore, rows, DOCX files and a collaboration edit written back.
 */
describe("search", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
  });

  const { mkDoc, putText } = searchDocs(() => t);

  describe("GET /search", () => {
    it("ranks a title hit above a body hit, with path and highlighted, escaped snippet", async () => {
      const w = word("rank");
      const bodyHit = await mkDoc("Plain name");
      await putText(bodyHit, `Some words before ${w} and <b>tags</b> & after`);
      const titleHit = await mkDoc(`About ${w}`);
      const res = await search(t.viewer.token, w);
      expect(res.status).toBe(200);
      expect(res.body.data.map((h: any) => h._id)).toEqual([titleHit, bodyHit]);
      const [first, second] = res.body.data;
      expect(first).toMatchObject({
        kind: "document",
        title: `About ${w}`,
        workspaceId: t.workspaceId,
        projectId: t.projectId,
        tableId: null,
      });
      expect(first.path).toEqual({
        project: { _id: t.projectId, name: "Project" },
        folders: [{ _id: t.folderId, name: "Folder" }],
        table: null,
      });
      expect(first.snippet).toBe(`About <mark>${w}</mark>`);
      expect(second.snippet).toContain(`<mark>${w}</mark>`);
      expect(second.snippet).toContain("&lt;b&gt;tags&lt;/b&gt; &amp; after");
      expect(second.snippet).not.toContain("<b>");
      expect(res.body.nextCursor).toBeNull();
    });

    it("ignores accents and case, and supports prefixes, phrases, OR and exclusion", async () => {
      const w = word("syn");
      const a = await mkDoc(`${w} Café Crème`);
      const b = await mkDoc(`${w} cafe noir`);
      const c = await mkDoc(`${w} the noir café`);
      expect((await ids(t.owner.token, `${w} CAFE`)).sort()).toEqual([a, b, c].sort());
      expect(await ids(t.owner.token, `${w.slice(0, -3)}* creme`)).toEqual([a]);
      expect(await ids(t.owner.token, `${w} "cafe noir"`)).toEqual([b]);
      expect((await ids(t.owner.token, `${w} creme OR "noir café"`)).sort()).toEqual([a, c].sort());
      expect(await ids(t.owner.token, `${w} -noir`)).toEqual([a]);
      expect((await ids(t.owner.token, `${w} -"cafe noir"`)).sort()).toEqual([a, c].sort());
      // FTS5 syntax typed by a user is just text.
      expect(await ids(t.owner.token, `${w} NEAR(title: body:) ^x AND`)).toEqual([]);
    });

    it("answers 422 with a plain message to a query it cannot read, never 500", async () => {
      for (const q of ['"unclosed', "-only -exclusions", "OR alone", "a OR", "!!! ???", "x".repeat(600)]) {
        const res = await search(t.owner.token, q);
        if (q.length > 500) expect(res.status).toBe(400);
        else expectError(res, 422, "UnprocessableEntityError");
      }
      expectError(await search(t.owner.token, "fine", { cursor: "bogus" }), 400, "ValidationError");
    });

    it("pages with a cursor and filters by type, workspace and project", async () => {
      const w = word("page");
      const made: string[] = [];
      for (let i = 0; i < 5; i++) made.push(await mkDoc(`${w} ${i}`));
      const first = await search(t.owner.token, w, { limit: 3 });
      expect(first.body.data).toHaveLength(3);
      const second = await search(t.owner.token, w, { limit: 3, cursor: first.body.nextCursor });
      expect(second.body.data).toHaveLength(2);
      expect(second.body.nextCursor).toBeNull();
      expect([...first.body.data, ...second.body.data].map((h: any) => h._id).sort()).toEqual(made.sort());
      expect(await ids(t.owner.token, w, { type: "row" })).toEqual([]);
      expect(
        await ids(t.owner.token, w, {
          type: "document",
          projectId: t.projectId,
          workspaceId: t.workspaceId,
          limit: 50,
        }),
      ).toHaveLength(5);
      const other = await ok("POST", "/project", {
        token: t.owner.token,
        body: { workspaceId: t.workspaceId, name: "Other" },
      });
      expect(await ids(t.owner.token, w, { projectId: other.data._id })).toEqual([]);
    });

    it("finds rows by their text cells, following the table's project access", async () => {
      const w = word("row");
      const table = await makeTable(t.owner.token, t.projectId, "Clients");
      const notes = await addColumn(t.owner.token, table.tableId, "Notes", { type: "text" });
      const { row } = await addRow(t.owner.token, table.tableId, {
        [table.nameColumnId]: `Acme ${w}`,
        [notes._id]: `called about ${w}bill`,
      });
      const { row: other } = await addRow(t.owner.token, table.tableId, {
        [table.nameColumnId]: "Other",
        [notes._id]: `mentions ${w} only in notes`,
      });
      const res = await search(t.viewer.token, w, { type: "row" });
      expect(res.body.data.map((h: any) => h._id)).toEqual([row._id, other._id]);
      expect(res.body.data[0]).toMatchObject({
        kind: "row",
        title: `Acme ${w}`,
        tableId: table.tableId,
        path: { table: { _id: table.tableId, name: "Clients" } },
      });
      expect(await ids(t.viewer.token, `${w}bi*`)).toEqual([row._id]);
      // A cell write reindexes the row; deleting the row hides it.
      await ok("PUT", `/table/row/${other._id}/cell/${notes._id}`, {
        token: t.owner.token,
        body: { data: "nothing now" },
      });
      expect(await ids(t.viewer.token, w)).toEqual([row._id]);
      await ok("DELETE", `/table/row/${row._id}`, { token: t.owner.token });
      expect(await ids(t.viewer.token, w)).toEqual([]);
      expect(await ids(t.outsider.token, "Acme")).toEqual([]);
    });

    it("stops finding a deleted table's rows", async () => {
      const w = word("tbl");
      const table = await makeTable(t.owner.token, t.projectId, "Doomed");
      const { row } = await addRow(t.owner.token, table.tableId, { [table.nameColumnId]: `Doomed ${w}` });
      expect(await ids(t.editor.token, w)).toEqual([row._id]);
      await ok("DELETE", `/table/${table.tableId}`, { token: t.owner.token });
      expect(await ids(t.editor.token, w)).toEqual([]);
    });

    it("finds an uploaded DOCX file by its text", async () => {
      const w = word("docx");
      const res = await call("POST", "/document/docx", {
        token: t.owner.token,
        raw: docxBytes(`Quarterly ${w} figures`),
        headers: { "content-type": DOCX_TYPE },
        query: { projectId: t.projectId, name: "Report.docx" },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const hits = (await search(t.owner.token, w)).body.data;
      expect(hits).toHaveLength(1);
      expect(hits[0]).toMatchObject({ _id: res.body.data._id, kind: "file", title: "Report.docx" });
      expect(hits[0].snippet).toContain(`<mark>${w}</mark>`);
      expect(await ids(t.owner.token, w, { type: "document" })).toEqual([]);
    });

    it("follows a file's new DOCX version and a snapshot restore of an older one", async () => {
      const w1 = word("docxone");
      const w2 = word("docxtwo");
      const created = await call("POST", "/document/docx", {
        token: t.owner.token,
        raw: docxBytes(`First ${w1}`),
        headers: { "content-type": DOCX_TYPE },
        query: { projectId: t.projectId, name: "Contract.docx" },
      });
      const id = created.body.data._id as string;
      const snap = await ok("POST", "/snapshot", { token: t.owner.token, body: { documentId: id, name: "v1" } });
      await ok("PUT", `/document/docx/${id}`, {
        token: t.owner.token,
        raw: docxBytes(`Second ${w2}`),
        headers: { "content-type": DOCX_TYPE },
      });
      expect(await ids(t.owner.token, w1)).toEqual([]);
      expect(await ids(t.owner.token, w2)).toEqual([id]);
      await ok("POST", `/snapshot/${snap.data._id}/restore`, { token: t.owner.token });
      expect(await ids(t.owner.token, w1)).toEqual([id]);
      expect(await ids(t.owner.token, w2)).toEqual([]);
    });

    it("drops a soft-deleted document and finds it again after restore", async () => {
      const w = word("trash");
      const folder = await mkDoc("Trash folder", { type: "FOLDER" });
      const doc = await mkDoc("Inside", { parentId: folder });
      await putText(doc, `body with ${w}`);
      expect(await ids(t.editor.token, w)).toEqual([doc]);
      await ok("DELETE", `/document/${folder}`, { token: t.owner.token });
      expect(await ids(t.editor.token, w)).toEqual([]);
      await ok("POST", `/document/${folder}/restore`, { token: t.owner.token });
      expect(await ids(t.editor.token, w)).toEqual([doc]);
    });

    it("follows content writes: replaced text is no longer found, renames are", async () => {
      const w1 = word("old");
      const w2 = word("new");
      const doc = await mkDoc("Edited");
      await putText(doc, w1);
      expect(await ids(t.owner.token, w1)).toEqual([doc]);
      await putText(doc, w2);
      expect(await ids(t.owner.token, w1)).toEqual([]);
      expect(await ids(t.owner.token, w2)).toEqual([doc]);
      const w3 = word("renamed");
      await ok("PATCH", `/document/${doc}`, { token: t.owner.token, body: { name: w3 } });
      expect(await ids(t.owner.token, w3)).toEqual([doc]);
    });

    it("returns only what the caller can read, by every access path, and stops after revocation", async () => {
      const w = word("acl");
      const folder = await mkDoc(`Shared ${w}`, { type: "FOLDER" });
      const inside = await mkDoc(`Inside ${w}`, { parentId: folder });
      const secret = await mkDoc(`Secret ${w}`, { parentId: null });
      const table = await makeTable(t.owner.token, t.projectId, "Tbl");
      const { row } = await addRow(t.owner.token, table.tableId, { [table.nameColumnId]: `Row ${w}` });
      const all = [folder, inside, secret, row._id].sort();

      // Workspace collaborators (any role) read everything in it.
      expect((await ids(t.viewer.token, w)).sort()).toEqual(all);
      // An outsider finds nothing, and the answer says nothing about what exists.
      const outsider = await search(t.outsider.token, w);
      expect(outsider.body).toEqual({ data: [], nextCursor: null });

      // A direct invitation on the folder: the folder and what is below it (cascade), plus the project's rows;
      // the folder path shows only folders the guest can read.
      const guest = await registerUser("Guest");
      await ok("POST", "/document/invite-user", {
        token: t.owner.token,
        body: { email: guest.email, documentId: folder },
      });
      expect((await ids(guest.token, w)).sort()).toEqual([folder, inside, row._id].sort());
      const insideHit = (await search(guest.token, `Inside ${w}`)).body.data[0];
      expect(insideHit.path.folders).toEqual([{ _id: folder, name: `Shared ${w}` }]);

      // A direct invitation on one document deep inside: only it; its unreadable folders are not named.
      const guest2 = await registerUser("Guest2");
      await ok("POST", "/document/invite-user", {
        token: t.owner.token,
        body: { email: guest2.email, documentId: inside },
      });
      const g2 = (await search(guest2.token, `Inside ${w}`)).body.data;
      expect(g2.map((h: any) => h._id)).toEqual([inside]);
      expect(g2[0].path.folders).toEqual([]);

      // A workspace collaborator added, then removed: finds, then stops finding (grants in the workspace go too).
      const member: RegisteredUser = await registerUser("Member");
      await addWorkspaceCollaborator(t.owner, t.workspaceId, member, "viewer");
      expect((await ids(member.token, w)).sort()).toEqual(all);
      await ok("DELETE", `/workspace/${t.workspaceId}/collaborator/${member.id}`, { token: t.owner.token });
      expect(await ids(member.token, w)).toEqual([]);
      await ok("DELETE", `/workspace/${t.workspaceId}/collaborator/${guest.id}`, { token: t.owner.token }).catch(
        () => undefined,
      );
    });

    it("answers the same whatever hidden workspaces hold, and its FTS match names only what the caller reaches", async () => {
      const w = word("scope");
      const mine = [await mkDoc(`${w} one`), await mkDoc("Two")];
      await putText(mine[1]!, `text with ${w}`);
      const before = await search(t.viewer.token, w);
      expect(before.body.data.map((h: any) => h._id)).toEqual(mine);

      // Another tenant's workspace full of matches, one of its documents then shared with the searcher.
      const hidden = await seedTenant();
      const hiddenDocs: string[] = [];
      for (let i = 0; i < 30; i++)
        hiddenDocs.push(
          await mkDoc(`${w} hidden ${i}`, { token: hidden.owner.token, projectId: hidden.projectId, parentId: null }),
        );
      expect(await search(t.viewer.token, w)).toMatchObject({ status: 200, body: before.body });
      expect(await ids(hidden.owner.token, w, { limit: 50 })).toHaveLength(30);

      // The MATCH the searcher's statement runs on each shard database, and what FTS5 alone yields for it there:
      // summed over every shard, exactly the visible entries. The two tenants may or may not share a shard.
      const matchOf = async (d1: D1Database, userId: string) =>
        (
          await drizzle(d1).all<{ m: string }>(
            sql`WITH RECURSIVE ${scopedMatchCtes(sql`${userId}`, ftsExpression(w), {})} SELECT m FROM q`,
          )
        )[0]!.m;
      const ftsHits = async (d1: D1Database, m: string) =>
        (await d1.prepare("SELECT rowid FROM search_fts WHERE search_fts MATCH ?").bind(m).all()).results.length;
      const everywhere = async (userId: string) =>
        Promise.all(everyShardD1().map(async (d1) => ({ d1, m: await matchOf(d1, userId) })));
      const hitsEverywhere = async (matches: { d1: D1Database; m: string }[]) =>
        (await Promise.all(matches.map(({ d1, m }) => ftsHits(d1, m)))).reduce((a, b) => a + b, 0);
      let matches = await everywhere(t.viewer.id);
      let m = await matchOf(shardD1(t.workspaceId), t.viewer.id);
      expect(m).toContain(`scope : (`);
      expect(m).toContain(`"w${t.workspaceId}"`);
      for (const { m: each } of matches) {
        expect(each).not.toContain(hidden.workspaceId);
        for (const id of hiddenDocs) expect(each).not.toContain(id);
      }
      expect(await hitsEverywhere(matches)).toBe(2);

      // A direct invitation adds that one document's scope word (on its shard), not its workspace.
      await ok("POST", "/document/invite-user", {
        token: hidden.owner.token,
        body: { email: t.viewer.email, documentId: hiddenDocs[7] },
      });
      m = await matchOf(shardD1(hiddenDocs[7]!), t.viewer.id);
      expect(m).toContain(`"d${hiddenDocs[7]}"`);
      matches = await everywhere(t.viewer.id);
      for (const { m: each } of matches) expect(each).not.toContain(`"w${hidden.workspaceId}"`);
      expect(await hitsEverywhere(matches)).toBe(3);
      expect((await ids(t.viewer.token, w)).sort()).toEqual([...mine, hiddenDocs[7]!].sort());
    });

    it("makes a collaboration edit findable once the room writes it back", async () => {
      const w = word("collab");
      const doc = await mkDoc("Live doc");
      const peer = await connect(doc, { token: t.owner.token });
      peer.write([para("p1", `typed live ${w}`)]);
      const room = env.DOCUMENT_ROOM.get(env.DOCUMENT_ROOM.idFromName(doc));
      await peer.until(() => peer.blocks().length === 1, "the peer's own block");
      // Write-back: the room stores its blocks through the same content write as PUT.
      for (let i = 0; i < 50 && (await ids(t.owner.token, w)).length === 0; i++) {
        await room.flush();
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await ids(t.owner.token, w)).toEqual([doc]);
      peer.close();
    });

    it("restoring a snapshot brings back the snapshot's text", async () => {
      const w1 = word("snapa");
      const w2 = word("snapb");
      const doc = await mkDoc("Snap doc");
      await putText(doc, w1);
      const snap = await ok("POST", "/snapshot", { token: t.owner.token, body: { documentId: doc, name: "v1" } });
      await putText(doc, w2);
      expect(await ids(t.owner.token, w1)).toEqual([]);
      await ok("POST", `/snapshot/${snap.data._id}/restore`, { token: t.owner.token });
      expect(await ids(t.owner.token, w1)).toEqual([doc]);
      expect(await ids(t.owner.token, w2)).toEqual([]);
    });
  });
});

/**
 * Comments found by search (docs/api-guide.md › Search, › Comments): under their target's read rule (a document's
 * readers, a row's: readers of its table's project), never tombstones nor comments of deleted targets.
 */
describe("search: comments", () => {
  let c: CommentTenant;
  beforeAll(async () => {
    c = await seedCommentTenant();
  });
  const hitsOf = async (token: string, q: string, query: Record<string, string> = {}) => {
    const res = await call("GET", "/search", { token, query: { q, ...query } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as any[];
  };
  const idsOf = async (token: string, q: string, query: Record<string, string> = {}) =>
    (await hitsOf(token, q, query)).map((h) => h._id as string).sort();

  it("finds a comment on a document for its readers, as a comment hit naming its target and thread", async () => {
    const w = word("clause");
    const thread = await docThread(c, c.editor.token, `This **contradicts** ${w} in section 4`);
    const reply = (
      await ok("POST", `/comment/${thread._id}/reply`, { token: c.owner.token, body: { body: `Yes ${w}` } })
    ).data;
    const hits = await hitsOf(c.viewer.token, w);
    expect(hits.map((h) => h._id).sort()).toEqual([thread._id, reply._id].sort());
    expect(hits.find((h) => h._id === thread._id)).toMatchObject({
      kind: "comment",
      title: "Doc 1",
      workspaceId: c.workspaceId,
      projectId: c.projectId,
      tableId: null,
      path: { project: { _id: c.projectId }, folders: [{ _id: c.folderId, name: "Folder" }], table: null },
      snippet: expect.stringContaining(`<mark>${w}</mark>`),
      target: { documentId: c.docId, rowId: null, threadId: thread._id },
    });
    expect(hits.find((h) => h._id === reply._id).target.threadId).toBe(thread._id);
    // The commenter reads the document, and so its comments; the type filter keeps comments apart.
    expect(await idsOf(c.commenter.token, w, { type: "comment" })).toEqual([thread._id, reply._id].sort());
    expect(await idsOf(c.owner.token, w, { type: "document" })).toEqual([]);
    expect(await idsOf(c.owner.token, w, { projectId: c.projectId })).toEqual([thread._id, reply._id].sort());
    // Documents and rows keep `target: null`.
    const docHit = (await hitsOf(c.owner.token, "Doc 1", { projectId: c.projectId, type: "document" }))[0];
    expect(docHit.target).toBeNull();
  });

  it("does not find a comment for a stranger, nor for a user granted only another document", async () => {
    const w = word("private");
    const secret = await docThread(c, c.owner.token, `secret ${w}`);
    expect(await idsOf(c.editor.token, w)).toEqual([secret._id]);
    expect(await hitsOf(c.outsider.token, w)).toEqual([]);
    expect(await hitsOf(c.outsider.token, w, { workspaceId: c.workspaceId })).toEqual([]);
    const other = await registerUser("Other doc reader");
    await ok("POST", "/document/invite-user", {
      token: c.owner.token,
      body: { email: other.email, documentId: c.doc2Id },
    });
    expect((await call("GET", `/document/${c.doc2Id}`, { token: other.token })).status).toBe(200);
    expect(await hitsOf(other.token, w)).toEqual([]);
    expect(await hitsOf(other.token, w, { type: "comment" })).toEqual([]);
  });

  it("finds a comment on a row for readers of the table's project, with its table", async () => {
    const w = word("cell");
    const comment = (
      await ok("POST", `/table/row/${c.rowId}/comment`, {
        token: c.commenter.token,
        body: { body: `check ${w} here`, columnId: c.nameColumnId },
      })
    ).data;
    const [hit] = await hitsOf(c.viewer.token, w);
    expect(hit).toMatchObject({
      _id: comment._id,
      kind: "comment",
      tableId: c.tableId,
      path: { table: { _id: c.tableId, name: "Clauses" }, folders: [] },
      target: { documentId: null, rowId: c.rowId, threadId: comment._id },
    });
    expect(await hitsOf(c.outsider.token, w)).toEqual([]);
    // A deleted row takes its comments out of search; restoring it brings them back.
    await ok("DELETE", `/table/row/${c.rowId}`, { token: c.owner.token });
    expect(await hitsOf(c.owner.token, w)).toEqual([]);
    await ok("POST", `/table/${c.tableId}/rows/restore`, { token: c.owner.token, body: { ids: [c.rowId] } });
    expect(await idsOf(c.owner.token, w)).toEqual([comment._id]);
  });

  it("stops finding a deleted comment, an edited-away word, and the comments of a deleted document", async () => {
    const [gone, edited, kept] = [word("gone"), word("edited"), word("kept")];
    const a = await docThread(c, c.editor.token, `will go ${gone}`);
    const b = await docThread(c, c.editor.token, `was ${edited}`);
    const doc = (
      await ok("POST", "/document", {
        token: c.owner.token,
        body: { projectId: c.projectId, parentId: c.folderId, name: "Short-lived", type: "DOCUMENT" },
      })
    ).data._id as string;
    const onDoc = (await ok("POST", `/document/${doc}/comment`, { token: c.owner.token, body: { body: `on ${kept}` } }))
      .data;
    expect(await idsOf(c.viewer.token, gone)).toEqual([a._id]);
    await ok("DELETE", `/comment/${a._id}`, { token: c.editor.token });
    expect(await hitsOf(c.viewer.token, gone)).toEqual([]);
    await ok("PATCH", `/comment/${b._id}`, { token: c.editor.token, body: { body: "now something else" } });
    expect(await hitsOf(c.viewer.token, edited)).toEqual([]);
    expect(await idsOf(c.viewer.token, "now something else", { type: "comment" })).toContain(b._id);
    // The document, then its folder: the comment goes and comes back with it.
    expect(await idsOf(c.viewer.token, kept)).toEqual([onDoc._id]);
    await ok("DELETE", `/document/${doc}`, { token: c.owner.token });
    expect(await hitsOf(c.viewer.token, kept)).toEqual([]);
    await ok("POST", `/document/${doc}/restore`, { token: c.owner.token });
    expect(await idsOf(c.viewer.token, kept)).toEqual([onDoc._id]);
    await ok("DELETE", `/document/${c.folderId}`, { token: c.owner.token });
    expect(await hitsOf(c.viewer.token, kept)).toEqual([]);
    await ok("POST", `/document/${c.folderId}/restore`, { token: c.owner.token });
    expect(await idsOf(c.viewer.token, kept)).toEqual([onDoc._id]);
  });
});

describe("search: saved views", () => {
  let v: Tenant;
  beforeAll(async () => {
    v = await seedTenant();
  });
  const word = (stem: string) =>
    `${stem}${crypto
      .randomUUID()
      .replace(/[^a-f]/g, "")
      .slice(0, 10)}`;
  const idsOf = async (token: string, q: string, query: Record<string, string> = {}) => {
    const res = await call("GET", "/search", { token, query: { q, ...query } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body.data as any[]).map((h) => h._id as string);
  };

  it("finds a view by name for readers of its table, as a view hit with its table; renames, deletes and its table follow", async () => {
    const w = word("open");
    const table = await makeTable(v.owner.token, v.projectId, "Invoices");
    const view = (
      await ok("POST", `/table/${table.tableId}/view`, { token: v.editor.token, body: { name: `My ${w} invoices` } })
    ).data;
    const res = await call("GET", "/search", { token: v.viewer.token, query: { q: w } });
    expect(res.body.data).toEqual([
      expect.objectContaining({
        _id: view._id,
        kind: "view",
        title: `My ${w} invoices`,
        projectId: v.projectId,
        tableId: table.tableId,
        path: {
          project: { _id: v.projectId, name: expect.any(String) },
          folders: [],
          table: { _id: table.tableId, name: "Invoices" },
        },
        snippet: expect.stringContaining(`<mark>${w}</mark>`),
        target: null,
      }),
    ]);
    expect(await idsOf(v.viewer.token, w, { type: "view" })).toEqual([view._id]);
    expect(await idsOf(v.viewer.token, w, { type: "row" })).toEqual([]);
    expect(await idsOf(v.outsider.token, w)).toEqual([]);
    expect(await idsOf(v.outsider.token, w, { workspaceId: v.workspaceId })).toEqual([]);
    // A rename moves the words; a deleted table hides its views, and brings them back when it is live again.
    const w2 = word("paid");
    await ok("PATCH", `/table/view/${view._id}`, { token: v.editor.token, body: { name: `Paid ${w2}` } });
    expect(await idsOf(v.viewer.token, w)).toEqual([]);
    expect(await idsOf(v.viewer.token, w2)).toEqual([view._id]);
    await ok("DELETE", `/table/${table.tableId}`, { token: v.owner.token });
    expect(await idsOf(v.owner.token, w2)).toEqual([]);
    await shardD1(table.tableId).prepare("UPDATE tables SET is_deleted = 0 WHERE id = ?").bind(table.tableId).run();
    expect(await idsOf(v.owner.token, w2)).toEqual([view._id]);
    await ok("DELETE", `/table/view/${view._id}`, { token: v.editor.token });
    expect(await idsOf(v.owner.token, w2)).toEqual([]);
  });
});
