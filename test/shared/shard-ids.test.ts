/**
 * Every record inside an organization is issued on its organization's logical shard (docs/scaling.md "Id format"
 * and "Routing with no lookup"): its id ends with the shard in two base-32 digits, so a request naming it can be routed with
 * no lookup. Records of the directory (users, tokens) keep the plain 26-character form.
 */
import { describe, expect, it } from "vitest";
import { LOGICAL_SHARDS } from "../../src/tenancy/kernel/map";
import { logicalShardOfId } from "../../src/tenancy/kernel/ids";
import { ok, registerUser } from "../support/harness";
import { addColumn, addRow, makeTable } from "../support/tableHarness";

/** Every `_id` in a JSON answer, with the path it was found at. */
function idsIn(value: unknown, path = "$", out: [string, string][] = []): [string, string][] {
  if (Array.isArray(value)) value.forEach((v, i) => idsIn(v, `${path}[${i}]`, out));
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "_id" && typeof v === "string") out.push([`${path}._id`, v]);
      else idsIn(v, `${path}.${k}`, out);
    }
  }
  return out;
}

describe("ids carry their organization's logical shard", () => {
  it("a registration's personal organization and workspace share one logical shard; the user's id is a directory id", async () => {
    const u = await registerUser("Sharded");
    const shard = logicalShardOfId(u.organizationId);
    expect(u.organizationId).toHaveLength(28);
    expect(shard).not.toBeNull();
    expect(logicalShardOfId(u.workspaceId)).toBe(shard);
    expect(u.id).toHaveLength(26);
  });

  it("everything created inside a new organization — workspace, project, documents, table, columns, rows, cells (also the formula engine's), references, snapshots, automations and runs — names the organization's shard", async () => {
    const u = await registerUser("Builder");
    const org = (await ok("POST", "/organization", { token: u.token, body: { name: "Sharded Org" } })).data;
    const shard = logicalShardOfId(org._id);
    expect(org._id).toHaveLength(28);
    expect(shard).toEqual(expect.any(Number));

    const answers: unknown[] = [];
    const keep = <T>(answer: T): T => (answers.push(answer), answer);
    const ws = keep(
      await ok("POST", "/workspace", { token: u.token, body: { organizationId: org._id, name: "W" } }),
    ).data;
    const project = keep(
      await ok("POST", "/project", { token: u.token, body: { workspaceId: ws._id, name: "P" } }),
    ).data;
    const folder = keep(
      await ok("POST", "/document", { token: u.token, body: { projectId: project._id, name: "F", type: "FOLDER" } }),
    ).data;
    const doc = keep(
      await ok("POST", "/document", {
        token: u.token,
        body: { projectId: project._id, parentId: folder._id, name: "D", type: "DOCUMENT" },
      }),
    ).data;
    const table = await makeTable(u.token, project._id, "T");
    const price = keep(await addColumn(u.token, table.tableId, "Price", { type: "number" }));
    const total = keep(await addColumn(u.token, table.tableId, "Total", { type: "number" }));
    const { row } = keep(await addRow(u.token, table.tableId, { [table.nameColumnId]: "a", [price._id]: 4 }));
    // E3: the engine writes the new column's cells in SQL, with ids it builds there.
    await ok("POST", `/table/column/${total._id}/computed/apply`, {
      token: u.token,
      body: {
        description: [{ kind: "text", text: "Price * 2" }],
        expression: {
          kind: "op",
          op: "*",
          args: [
            { kind: "column", columnId: price._id },
            { kind: "literal", value: 2 },
          ],
        },
      },
    });
    keep(await ok("GET", `/table/row/${row._id}`, { token: u.token }));
    keep(await ok("GET", `/table/${table.tableId}`, { token: u.token }));
    keep(await ok("POST", "/snapshot", { token: u.token, body: { documentId: doc._id, name: "S" } }));
    keep(
      await ok("POST", "/table/reference", {
        token: u.token,
        body: {
          documentId: doc._id,
          tableId: table.tableId,
          columnId: table.nameColumnId,
          relatedRowId: null,
          type: "global",
        },
      }),
    );
    const automation = keep(
      await ok("POST", "/automation", {
        token: u.token,
        body: {
          projectId: project._id,
          name: "A",
          runFromButton: true,
          actions: [{ spec: { kind: "notify", title: "Hi" } }],
        },
      }),
    ).data;
    keep(await ok("POST", `/automation/${automation._id}/run`, { token: u.token }));

    const found = idsIn(answers);
    // The formula engine's cells are among them: the row's Total cell was written by E3.
    expect(JSON.stringify(answers)).toContain(total._id);
    expect(found.length).toBeGreaterThan(12);
    const elsewhere = found.filter(([, id]) => logicalShardOfId(id) !== shard || id.length !== 28);
    expect(elsewhere, `ids not on the organization's shard ${shard}`).toEqual([]);
  });

  it("new organizations are spread over the logical shards (uniform placement), not put on one", async () => {
    const u = await registerUser("Many orgs");
    const shards = new Set<number | null>();
    for (let i = 0; i < 8; i++) {
      const org = (await ok("POST", "/organization", { token: u.token, body: { name: `Org ${i}` } })).data;
      shards.add(logicalShardOfId(org._id));
    }
    // Eight uniform draws over 480 shards all landing on one has probability 480^-7.
    expect(shards.size).toBeGreaterThan(1);
    for (const s of shards) expect(s !== null && s >= 0 && s < LOGICAL_SHARDS).toBe(true);
  });
});
