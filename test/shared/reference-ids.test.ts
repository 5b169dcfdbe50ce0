// Reference ids (docs/scaling.md "Reference ids"): a clause reference's `_id`, and a table reference's when the client
// chooses it, is claimed in the directory's reference_ids beside the create's first read, so two creates racing on
// two shard databases cannot both win; the scheduler's reconcileReferenceIds repairs a create interrupted between the
// directory and the shard.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../support/harness";
import { addRow, makeTable } from "../support/tableHarness";
import { shardBindingOfId } from "../../src/tenancy/kernel/ids";
import { reconcileReferenceIds } from "../../src/services/references/referenceIds";

let n = 0;
const uniqueId = (kind: string) =>
  `${kind}-${Date.now().toString(36)}-${++n}-${Math.random().toString(36).slice(2, 6)}`;

interface Side {
  t: Tenant;
  tableId: string;
  columnId: string;
  rowId: string;
}

/** Two tenants whose organizations were placed on two different shard databases (seeding until they differ). */
async function tenantsOnTwoShards(): Promise<[Tenant, Tenant]> {
  const first = await seedTenant();
  const binding = shardBindingOfId(first.organizationId);
  for (let i = 0; i < 30; i++) {
    const other = await seedTenant();
    if (shardBindingOfId(other.organizationId) !== binding) return [first, other];
  }
  throw new Error("no two organizations on different shard databases after 30 tenants");
}

async function sideOf(t: Tenant): Promise<Side> {
  const table = await makeTable(t.owner.token, t.projectId, "Referenced");
  const row = await addRow(t.owner.token, table.tableId, { [table.nameColumnId]: "Row" });
  return { t, tableId: table.tableId, columnId: table.nameColumnId, rowId: row.row._id };
}

const clause = (s: Side, id: string) =>
  call("POST", "/clause-reference", {
    token: s.t.owner.token,
    body: { _id: id, blockId: "blk-1", documentId: s.t.docId, hierarchy: `${s.t.doc2Id}/blk-2` },
  });
const tableRef = (s: Side, id: string) =>
  call("POST", "/table/reference", {
    token: s.t.owner.token,
    body: {
      _id: id,
      documentId: s.t.docId,
      tableId: s.tableId,
      columnId: s.columnId,
      relatedRowId: s.rowId,
      type: "reference",
    },
  });

const claimOf = (kind: string, id: string) =>
  env.DB.prepare(`SELECT document_id, claimed_at FROM reference_ids WHERE kind = ?1 AND id = ?2`)
    .bind(kind, id)
    .first<{ document_id: string; claimed_at: number }>();

describe("reference ids in the directory", () => {
  let a: Side;
  let b: Side;
  beforeAll(async () => {
    const [ta, tb] = await tenantsOnTwoShards();
    expect(shardBindingOfId(ta.organizationId)).not.toBe(shardBindingOfId(tb.organizationId));
    [a, b] = await Promise.all([sideOf(ta), sideOf(tb)]);
  });

  for (const [kind, create, message] of [
    ["clause", clause, "A clause reference with _id"],
    ["table", tableRef, "A table reference with _id"],
  ] as const) {
    it(`two ${kind} references with one _id created at the same instant on two shard databases: exactly one wins, the other is 409`, async () => {
      for (let round = 0; round < 3; round++) {
        const id = uniqueId(kind);
        const answers = await Promise.all([create(a, id), create(b, id)]);
        expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
        const lost = answers.find((r) => r.status === 409)!;
        expectError(lost, 409, "ConflictError");
        expect(lost.body.message).toBe(`${message} ${id} already exists`);
        const winner = answers[0]!.status === 200 ? a : b;
        expect((await claimOf(kind, id))?.document_id).toBe(winner.t.docId);
        // Only the winner's shard holds the reference.
        const table = kind === "clause" ? "clause_references" : "table_references";
        const held = await Promise.all(
          [a, b].map((s) =>
            env[shardBindingOfId(s.t.organizationId)!]!.prepare(`SELECT document_id FROM ${table} WHERE id = ?1`)
              .bind(id)
              .all(),
          ),
        );
        expect(held.flatMap((r) => r.results)).toEqual([{ document_id: winner.t.docId }]);
      }
    });
  }

  it("a deleted reference keeps its id: another shard's create with it is 409", async () => {
    const id = uniqueId("clause");
    await ok("POST", "/clause-reference", {
      token: a.t.owner.token,
      body: { _id: id, blockId: "b", documentId: a.t.docId, hierarchy: "x/y" },
    });
    await ok("DELETE", `/clause-reference/${id}`, { token: a.t.owner.token });
    expectError(await clause(b, id), 409, "ConflictError");
  });

  it("a claim whose shard write never happened holds the id until the repair deletes it", async () => {
    for (const [kind, create] of [
      ["clause", clause],
      ["table", tableRef],
    ] as const) {
      const id = uniqueId(kind);
      const now = Date.now();
      // The directory's half of a create in `a` whose shard write failed: a claim, no reference.
      await env.DB.prepare(`INSERT INTO reference_ids (kind, id, document_id, claimed_at) VALUES (?1, ?2, ?3, ?4)`)
        .bind(kind, id, a.t.docId, now)
        .run();
      expectError(await create(b, id), 409, "ConflictError");

      // Within the grace period the claim is left alone (the create's shard write may still be on its way).
      await reconcileReferenceIds(env, now + 60_000);
      expect(await claimOf(kind, id)).not.toBeNull();

      const repaired = await reconcileReferenceIds(env, now + 10 * 60_000);
      expect(repaired.deleted).toBeGreaterThanOrEqual(1);
      expect(await claimOf(kind, id)).toBeNull();
      expect((await create(b, id)).status).toBe(200);
      expect((await claimOf(kind, id))?.document_id).toBe(b.t.docId);
    }
  });

  it("a reference whose claim is missing gets it back from the repair; then another shard's create with its id is 409", async () => {
    for (const [kind, create] of [
      ["clause", clause],
      ["table", tableRef],
    ] as const) {
      const id = uniqueId(kind);
      expect((await create(a, id)).status).toBe(200);
      // A reference from before the directory kept ids.
      await env.DB.prepare(`DELETE FROM reference_ids WHERE kind = ?1 AND id = ?2`).bind(kind, id).run();
      const repaired = await reconcileReferenceIds(env, Date.now());
      expect(repaired.added).toBeGreaterThanOrEqual(1);
      expect((await claimOf(kind, id))?.document_id).toBe(a.t.docId);
      // The claim refuses it (beside the other shards' check, kept for references not yet claimed).
      const refused = await create(b, id);
      expectError(refused, 409, "ConflictError");
    }
  });

  it("a reference older than the tick's day gets its claim from a full pass (adoption's since 0) only", async () => {
    const id = uniqueId("table");
    expect((await tableRef(a, id)).status).toBe(200);
    await env.DB.prepare(`DELETE FROM reference_ids WHERE kind = 'table' AND id = ?1`).bind(id).run();
    const shard = env[shardBindingOfId(a.t.organizationId)!]!;
    await shard
      .prepare(`UPDATE table_references SET created_at = ?2 WHERE id = ?1`)
      .bind(id, Date.now() - 2 * 86_400_000)
      .run();
    await reconcileReferenceIds(env, Date.now());
    expect(await claimOf("table", id)).toBeNull();
    await reconcileReferenceIds(env, Date.now(), 0);
    expect((await claimOf("table", id))?.document_id).toBe(a.t.docId);
  });

  it("a create refused for access gives its fresh claim back", async () => {
    const id = uniqueId("clause");
    // The outsider has no access to a's document: 404, and the id stays free.
    const refused = await call("POST", "/clause-reference", {
      token: a.t.outsider.token,
      body: { _id: id, blockId: "b", documentId: a.t.docId, hierarchy: "x/y" },
    });
    expectError(refused, 404, "NotFoundError");
    expect(await claimOf("clause", id)).toBeNull();
    expect((await clause(b, id)).status).toBe(200);
  });

  it("a create whose token is refused gives its fresh claim back", async () => {
    const id = uniqueId("clause");
    // A token naming a real user with a wrong secret: the claim rides beside the token's check, which refuses it.
    const token = a.t.owner.token;
    const wrong = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
    const refused = await call("POST", "/clause-reference", {
      token: wrong,
      body: { _id: id, blockId: "b", documentId: a.t.docId, hierarchy: "x/y" },
    });
    expect(refused.status).toBe(401);
    expect(await claimOf("clause", id)).toBeNull();
  });
});
