// How a move selects and orders a logical shard's rows (src/tenancy/kernel/keys.ts; docs/scaling.md "Moving a logical shard").
import { env } from "cloudflare:workers";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { is } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as shardSchema from "../../src/db/schema/shard";
import {
  PER_DATABASE_TABLES,
  SHARD_TABLES,
  shardCondition,
  shardTablesInCopyOrder,
} from "../../src/tenancy/kernel/keys";
import { LOGICAL_SHARDS } from "../../src/tenancy/kernel/map";
import { shardTable } from "../../src/tenancy/kernel/tables";
import { logicalShardOfId } from "../../src/tenancy/kernel/ids";
import { newId, newShardedId } from "../../src/lib/ids";

const allTables = Object.values<unknown>(shardSchema)
  .filter((v): v is SQLiteTable => is(v, SQLiteTable))
  .map((t) => getTableConfig(t));
// The fence is each database's own record, not organization data: it has no shard key and is never copied.
const tables = allTables.filter((t) => !(PER_DATABASE_TABLES as readonly string[]).includes(t.name));

describe("shard keys", () => {
  it("every shard table has a key column, which exists and is NOT NULL; the per-database tables are shard tables without one", () => {
    for (const name of PER_DATABASE_TABLES) expect(allTables.map((t) => t.name)).toContain(name);
    const declared = SHARD_TABLES.map((d) => d.name);
    expect(declared.filter((n) => (PER_DATABASE_TABLES as readonly string[]).includes(n))).toEqual([]);
    expect([...declared].sort()).toEqual(tables.map((t) => t.name).sort());
    for (const { table, name, key } of SHARD_TABLES) {
      const config = getTableConfig(table);
      expect(config.name).toBe(name);
      const column = config.columns.find((c) => c.name === key);
      expect(column, name).toBeDefined();
      expect(column!.notNull, `${name}.${key}`).toBe(true);
    }
  });

  it("a key column must be a column of its own table (checked by types)", () => {
    // @ts-expect-error -- cells' workspace_id is not a column of rows
    const wrong = shardTable(shardSchema.rows, shardSchema.cells.workspaceId);
    expect(wrong.key).toBe("workspace_id");
  });

  it("the copy order puts every table after the tables it references", () => {
    const order = shardTablesInCopyOrder();
    expect([...order].sort()).toEqual(tables.map((t) => t.name).sort());
    for (const t of tables) {
      for (const fk of t.foreignKeys) {
        const parent = getTableConfig(fk.reference().foreignTable).name;
        if (parent === t.name || !order.includes(parent as never)) continue;
        expect(order.indexOf(parent as never), `${parent} before ${t.name}`).toBeLessThan(
          order.indexOf(t.name as never),
        );
      }
    }
    expect(order.indexOf("workspaces")).toBeLessThan(order.indexOf("cells"));
  });

  it("the SQL condition selects, in D1's SQLite, exactly the ids logicalShardOfId puts on the shard", async () => {
    // 480 and 1023: shard numbers the format holds but no logical shard has; no condition selects them.
    const ids = [newId(), newId(), ...[0, 0, 1, 31, 32, 100, 479, 480, 1023].map((s) => newShardedId(s))];
    const values = ids.map(() => "(?)").join(", ");
    for (const shard of [0, 1, 32, 100, 479, 5]) {
      const cond = shardCondition("column1", shard);
      const { results } = await env.DB.prepare(`SELECT column1 AS id FROM (VALUES ${values}) WHERE ${cond.sql}`)
        .bind(...ids, ...cond.params)
        .all<{ id: string }>();
      expect(results.map((r) => r.id).sort(), `shard ${shard}`).toEqual(
        ids.filter((id) => logicalShardOfId(id) === shard).sort(),
      );
    }
    expect(() => shardCondition("column1", LOGICAL_SHARDS)).toThrow(RangeError);
    expect(() => shardCondition("x; DROP TABLE rows", 1)).toThrow();
  });
});
