/**
 * A keyed CSV import that dies after its write (issue 34, finding 11; docs/security-review.md): the rows and the
 * kept answer commit in one D1 batch in both modes, so the retry replays the answer and never imports twice; the
 * rows of an import whose isolate died (staged, never made live) are removed by the Worker's scheduled sweep.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, ok, seedTenant, type Tenant } from "../../support/harness";
import { callScheduled } from "../../support/automations";
import { shardD1 } from "../../support/shards";
import { allRows, makeTable } from "../../support/tableHarness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

const csvHeaders = { "content-type": "text/csv" };

function importCsv(tableId: string, text: string, query: Record<string, string>, key?: string) {
  return call("POST", `/table/${tableId}/import`, {
    token: t.owner.token,
    raw: text,
    headers: { ...csvHeaders, ...(key && { "idempotency-key": key }) },
    query,
  });
}

async function liveRows(tableId: string) {
  return Number(
    await shardD1(tableId)
      .prepare("SELECT COUNT(*) AS n FROM rows WHERE table_id = ? AND is_deleted = 0")
      .bind(tableId)
      .first("n"),
  );
}

async function anyRows(tableId: string) {
  return Number(
    await shardD1(tableId).prepare("SELECT COUNT(*) AS n FROM rows WHERE table_id = ?").bind(tableId).first("n"),
  );
}

/** Runs `send` while the database refuses the key's final answer (one kept before it is replaced): a crash after the write. */
async function crashAfterWrite(tableId: string, key: string, send: () => Promise<{ status: number; body: any }>) {
  const db = shardD1(tableId);
  await db
    .prepare(
      `CREATE TRIGGER IF NOT EXISTS test_refuse_final_answer BEFORE UPDATE OF status ON idempotency_keys
     WHEN NEW.key = '${key}' AND OLD.status IS NOT NULL BEGIN SELECT RAISE(ABORT, 'simulated crash after the write'); END`,
    )
    .run();
  try {
    const cut = await send();
    expect(cut.status, JSON.stringify(cut.body).slice(0, 300)).toBe(500);
  } finally {
    await db.prepare("DROP TRIGGER IF EXISTS test_refuse_final_answer").run();
  }
}

describe("a keyed CSV import keeps its answer with its rows (finding 11)", () => {
  for (const mode of ["atomic", "partial"] as const) {
    it(`${mode}: a crash after the write leaves the answer for the retry, which replays it; the rows exist once`, async () => {
      const { tableId } = await makeTable(t.owner.token, t.projectId, `Crash ${mode}`);
      const key = `csv-crash-${mode}-${crypto.randomUUID()}`;
      // A new column (Qty) and, in partial mode, a bad row reported in the answer. 2,500 rows of 2 columns: several batches.
      const good = Array.from({ length: 2500 }, (_, i) => `r${i},${i}`);
      const text = `Name,Qty\n${good.join("\n")}\n${mode === "partial" ? "bad,notanumber\n" : ""}`;
      const query = { mode, types: JSON.stringify({ Qty: "number" }) };
      await crashAfterWrite(tableId, key, () => importCsv(tableId, text, query, key));
      expect(await liveRows(tableId)).toBe(2500);

      const retried = await importCsv(tableId, text, query, key);
      expect(retried.status, JSON.stringify(retried.body).slice(0, 300)).toBe(200);
      expect(retried.headers.get("idempotent-replayed")).toBe("true");
      expect(retried.body.data).toMatchObject({ imported: 2500, failed: mode === "partial" ? 1 : 0 });
      if (mode === "partial")
        expect(retried.body.data.errors).toEqual([expect.objectContaining({ line: 2502, column: "Qty" })]);
      expect(retried.body.data.columns.map((c: any) => [c.header, c.created])).toEqual([
        ["Name", false],
        ["Qty", true],
      ]);
      expect(await liveRows(tableId)).toBe(2500);
      expect(await anyRows(tableId)).toBe(2500);
      const cols = (await ok("GET", `/table/columns/${tableId}`, { token: t.owner.token })).data as any[];
      expect(cols.map((c) => c.name)).toEqual(["Name", "Qty"]);
    }, 120_000);

    it(`${mode}: when the answer cannot be kept, no row is made live either and the retry imports once`, async () => {
      const { tableId } = await makeTable(t.owner.token, t.projectId, `Refused ${mode}`);
      const key = `csv-refused-${mode}-${crypto.randomUUID()}`;
      const text = "Name,Qty\na,1\nb,2\n";
      const query = { mode, types: JSON.stringify({ Qty: "number" }) };
      const db = shardD1(tableId);
      await db
        .prepare(
          `CREATE TRIGGER IF NOT EXISTS test_refuse_kept_answer BEFORE UPDATE OF status ON idempotency_keys
         WHEN NEW.key = '${key}' AND NEW.status IS NOT NULL BEGIN SELECT RAISE(ABORT, 'simulated crash before the answer is kept'); END`,
        )
        .run();
      try {
        expect((await importCsv(tableId, text, query, key)).status).toBe(500);
      } finally {
        await db.prepare("DROP TRIGGER IF EXISTS test_refuse_kept_answer").run();
      }
      expect(await anyRows(tableId)).toBe(0);
      const retried = await importCsv(tableId, text, query, key);
      expect(retried.status, JSON.stringify(retried.body).slice(0, 300)).toBe(200);
      expect(retried.headers.get("idempotent-replayed")).toBeNull();
      expect(retried.body.data.imported).toBe(2);
      expect(await liveRows(tableId)).toBe(2);
      const cols = (await ok("GET", `/table/columns/${tableId}`, { token: t.owner.token })).data as any[];
      expect(cols.map((c) => c.name)).toEqual(["Name", "Qty"]);
    });
  }
});

describe("a keyed CSV import holds its claim while it runs (finding 11)", () => {
  it("renews the claim's lease with each batch, so a retry while a long import runs finds it held (409), not abandoned", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Renewed");
    const key = `csv-lease-${crypto.randomUUID()}`;
    const db = shardD1(tableId);
    // The import stalls past the lease while it writes its first batch (its claim is made stale, as a slow upload
    // would leave it); two more batches follow.
    await db
      .prepare(
        `CREATE TRIGGER IF NOT EXISTS test_stall_${tableId} AFTER INSERT ON rows
       WHEN NEW.table_id = '${tableId}' AND (SELECT COUNT(*) FROM rows WHERE table_id = '${tableId}') = 1
       BEGIN UPDATE idempotency_keys SET created_at = 0 WHERE key = '${key}' AND status IS NULL; END`,
      )
      .run();
    let stalled: number | undefined;
    try {
      const text = `Name\n${Array.from({ length: 2500 }, (_, i) => `r${i}`).join("\n")}\n`;
      const first = await importCsv(tableId, text, { mode: "partial" }, key);
      expect(first.status, JSON.stringify(first.body).slice(0, 300)).toBe(200);
      expect(first.body.data.imported).toBe(2500);
    } finally {
      await db.prepare(`DROP TRIGGER IF EXISTS test_stall_${tableId}`).run();
      stalled = Number(
        await db.prepare("SELECT created_at AS at FROM idempotency_keys WHERE key = ?").bind(key).first("at"),
      );
    }
    // The batch renewed the lease: the record is not one a retry could take over (without renewal it stayed at 0).
    expect(stalled).toBeGreaterThan(Date.now() - 60_000);
  }, 60_000);

  for (const mode of ["atomic", "partial"] as const) {
    it(`${mode}: commits nothing when a retry took its claim over: 409, no row, no column`, async () => {
      const { tableId } = await makeTable(t.owner.token, t.projectId, `Taken over ${mode}`);
      const key = `csv-taken-${crypto.randomUUID()}`;
      const db = shardD1(tableId);
      // A retry takes the claim over (another claim id) once the import has staged rows.
      await db
        .prepare(
          `CREATE TRIGGER IF NOT EXISTS test_take_over_${tableId} AFTER INSERT ON rows WHEN NEW.table_id = '${tableId}'
         BEGIN UPDATE idempotency_keys SET claim = 'the-retry', created_at = ${Date.now()} WHERE key = '${key}'; END`,
        )
        .run();
      try {
        const res = await importCsv(tableId, "Name,Qty\na,1\nb,2\n", { mode }, key);
        expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(409);
        expect(res.body.message).toMatch(/took the import over/);
      } finally {
        await db.prepare(`DROP TRIGGER IF EXISTS test_take_over_${tableId}`).run();
      }
      expect(await anyRows(tableId)).toBe(0);
      const cols = (await ok("GET", `/table/columns/${tableId}`, { token: t.owner.token })).data as any[];
      expect(cols.map((c) => c.name)).toEqual(["Name"]);
    });
  }
});

describe("partial mode stages its rows (finding 11)", () => {
  it("shows no row until the whole file is read, then every good row", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Partial staged");
    const total = 6000;
    const csv = `Name,Qty\n${Array.from({ length: total }, (_, i) => `r${i},${i}`).join("\n")}\nbad,x\n`;
    let done = false;
    const running = importCsv(tableId, csv, { mode: "partial", types: JSON.stringify({ Qty: "number" }) }).then(
      (res) => {
        done = true;
        return res;
      },
    );
    const seen: number[] = [];
    while (!done) {
      const page = await ok("GET", `/table/${tableId}/rows`, { token: t.owner.token, query: { limit: 1000 } });
      seen.push(page.data.length > 0 ? (await allRows(t.owner.token, tableId)).length : 0);
    }
    const res = await running;
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
    expect(res.body.data).toMatchObject({ imported: total, failed: 1 });
    expect(
      seen.every((n) => n === 0 || n === total),
      `row counts seen during the import: ${seen.join(",")}`,
    ).toBe(true);
    expect(await allRows(t.owner.token, tableId)).toHaveLength(total);
  }, 120_000);
});

describe("abandoned staged imports are swept (finding 11)", () => {
  it("the scheduled handler deletes the rows and cells of an import older than the sweep age, and nothing else", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Abandoned");
    const db = shardD1(tableId);
    // Two imports, made real then turned back into what a died isolate leaves: rows hidden with the import's marker,
    // and their cells. One is two hours old, one is running now.
    const stale = await importCsv(tableId, "Name,Old\ns1,a\ns2,b\ns3,c\n", { mode: "atomic" });
    expect(stale.status).toBe(200);
    const staleIds = (await allRows(t.owner.token, tableId)).map((r) => r._id as string);
    const fresh = await importCsv(tableId, "Name\nf1\nf2\n", { mode: "atomic" });
    expect(fresh.status).toBe(200);
    const freshIds = (await allRows(t.owner.token, tableId))
      .map((r) => r._id as string)
      .filter((id) => !staleIds.includes(id));
    const kept = await importCsv(tableId, "Name\nk1\n", { mode: "atomic" });
    expect(kept.status).toBe(200);
    const longAgo = Date.now() - 2 * 60 * 60 * 1000;
    const stage = (ids: string[], marker: string, at: number) =>
      db
        .prepare(
          "UPDATE rows SET is_deleted = 1, origin_id = ?, created_at = ?, updated_at = ? WHERE id IN (SELECT value FROM json_each(?))",
        )
        .bind(marker, at, at, JSON.stringify(ids))
        .run();
    await stage(staleIds, "csv-import:stale", longAgo);
    await stage(freshIds, "csv-import:fresh", Date.now());
    // A row a person deleted long ago (restorable): not an import's, never swept.
    const [deleted] = (await allRows(t.owner.token, tableId)).map((r) => r._id as string);
    await db.prepare("UPDATE rows SET is_deleted = 1, created_at = ? WHERE id = ?").bind(longAgo, deleted).run();
    const cellsOf = async (ids: string[]) =>
      Number(
        await db
          .prepare("SELECT COUNT(*) AS n FROM cells WHERE row_id IN (SELECT value FROM json_each(?))")
          .bind(JSON.stringify(ids))
          .first("n"),
      );
    const rowsOf = async (ids: string[]) =>
      Number(
        await db
          .prepare("SELECT COUNT(*) AS n FROM rows WHERE id IN (SELECT value FROM json_each(?))")
          .bind(JSON.stringify(ids))
          .first("n"),
      );
    expect(await cellsOf(staleIds)).toBe(6);

    await callScheduled(Date.now());

    expect(await rowsOf(staleIds)).toBe(0);
    expect(await cellsOf(staleIds)).toBe(0);
    expect(await rowsOf(freshIds)).toBe(2);
    expect(await cellsOf(freshIds)).toBe(2);
    expect(await rowsOf([deleted!])).toBe(1);
    expect(await liveRows(tableId)).toBe(0);
  });
});
