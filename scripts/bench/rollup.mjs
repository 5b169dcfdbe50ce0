// npm run bench -- rollup: a change to one linked row recomputing the rollups that read it in another table
// (docs/api-guide.md › Formulas, "Lookups and rollups"). Table Products (100 rows, 10 categories) is linked from
// tables Orders of 1k and 100k rows through a relation `Items` (Products.Category = Orders.Wants); every order
// wants category c0, so each order's `Total = SUM(LOOKUP({Items}, {Price}))` depends on the changed product.
// Measured: PUT one product's price (the cell write, then every order's Total recomputed before it answers),
// beside the raw D1 upsert of the same number of Total cells, in the same run.
//
// FORMULA_BENCH_SIZES=1000 narrows the run.
import { rmSync } from "node:fs";
import { monotonicFactory } from "ulidx";
import { freshState, idsBeside, median, openD1, printTable, seedUser, startApi, suffixBeside, time } from "./lib.mjs";

const ulid = monotonicFactory();
const RUNS = 5;
const CHUNK = 5_000;
const PRODUCTS = 100;

// The engine's cell write (src/services/formula/store.ts, upsertSql): ids = 20-char prefix + index + the table's shard digits (?8).
const UPSERT_SQL = `INSERT INTO cells (id, table_id, row_id, column_id, workspace_id, origin_id, is_identifier, data, is_deleted, created_at, updated_at)
  SELECT ?6 || printf('%06d', key) || ?8, ?1, json_extract(value, '$[0]'), ?5, ?2, '', ?7, json_extract(value, '$[1]'), 0, ?3, ?3
  FROM json_each(?4) WHERE json_extract(value, '$[1]') IS NOT NULL
  ON CONFLICT(row_id, column_id) DO UPDATE SET data = excluded.data, is_deleted = 0, updated_at = excluded.updated_at
    WHERE cells.data IS NOT excluded.data OR cells.is_deleted = 1`;
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const idPrefix = () =>
  ulid().slice(0, 10) + Array.from(crypto.getRandomValues(new Uint8Array(10)), (b) => CROCKFORD[b & 31]).join("");

function chunks(items, size) {
  const out = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * A table with columns `names` (`dataOf(col)` gives each one's data, from the ids) and `n` rows whose cells
 * `values[name](i)` gives, for `db`: the shard database of the owner's organization, with ids on its shard
 * (docs/scaling.md), as the API would issue them.
 */
function tableStatements(db, owner, name, names, dataOf, n, values) {
  const now = Date.now();
  const newId = idsBeside(ulid, owner.workspaceId);
  const suffix = suffixBeside(owner.workspaceId);
  const tableId = newId();
  const col = Object.fromEntries(names.map((c) => [c, newId()]));
  const data = dataOf(col);
  const stmts = [
    db
      .prepare(
        "INSERT INTO tables (id, project_id, workspace_id, user_id, name, is_deleted, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
      )
      .bind(tableId, owner.projectId, owner.workspaceId, owner.userId, name, now, now),
    ...Object.entries(data).map(([c, d], i) =>
      db
        .prepare(
          `INSERT INTO columns (id, table_id, project_id, workspace_id, name, slug, is_identifier, data, is_deleted, created_at, updated_at)
                  VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
        )
        .bind(
          col[c],
          tableId,
          owner.projectId,
          owner.workspaceId,
          c,
          c.toLowerCase(),
          d.type === "identifier" ? 1 : 0,
          JSON.stringify(d),
          now + i,
          now + i,
        ),
    ),
  ];
  const rowIds = Array.from({ length: n }, () => newId());
  for (const ids of chunks(rowIds, CHUNK)) {
    stmts.push(
      db
        .prepare(
          `INSERT INTO rows (id, table_id, project_id, workspace_id, owner_id, is_deleted, created_at, updated_at)
      SELECT value, ?1, ?2, ?3, ?4, 0, ?5, ?5 FROM json_each(?6)`,
        )
        .bind(tableId, owner.projectId, owner.workspaceId, owner.userId, now, JSON.stringify(ids)),
    );
  }
  for (const [c, value] of Object.entries(values)) {
    const cells = rowIds.map((rowId, i) => [rowId, JSON.stringify(value(i))]);
    for (const part of chunks(cells, CHUNK))
      stmts.push(
        db
          .prepare(UPSERT_SQL)
          .bind(
            tableId,
            owner.workspaceId,
            now,
            JSON.stringify(part),
            col[c],
            idPrefix(),
            c === "Name" ? 1 : 0,
            suffix,
          ),
      );
  }
  return { tableId, col, rowIds, stmts };
}

export default async function () {
  const sizes = (process.env.FORMULA_BENCH_SIZES ?? "")
    .split(",")
    .map(Number)
    .filter((x) => x > 0);
  const SIZES = sizes.length ? sizes : [1_000, 100_000];
  const dir = freshState();
  let api = await startApi({ dir });
  const owner = await seedUser(api, "RollupBench");
  await api.stop();

  // Seeded straight into the shard database of the owner's organization while the API is stopped.
  const seeded = await openD1(dir);
  const orgDb = seeded.shard(owner.workspaceId);
  const products = tableStatements(
    orgDb,
    owner,
    "Products",
    ["Name", "Category", "Price"],
    () => ({ Name: { type: "identifier" }, Category: { type: "text" }, Price: { type: "number" } }),
    PRODUCTS,
    {
      Name: (i) => `Product ${i}`,
      Category: (i) => `c${i % 10}`,
      Price: (i) => i + 1,
    },
  );
  for (const batch of chunks(products.stmts, 50)) await orgDb.batch(batch);
  const orders = [];
  for (const n of SIZES) {
    const t = tableStatements(
      orgDb,
      owner,
      `Orders ${n}`,
      ["Name", "Wants", "Items", "Total"],
      (col) => ({
        Name: { type: "identifier" },
        Wants: { type: "text" },
        Items: {
          type: "oneMany",
          oneMany: {
            tableId: products.tableId,
            filter: [{ targetColumnId: products.col.Category, op: "eq", sourceColumnId: col.Wants }],
            filterConjunction: "and",
          },
        },
        Total: { type: "text" },
      }),
      n,
      { Name: (i) => `Order ${i}`, Wants: () => "c0" },
    );
    const { ms } = await time(async () => {
      for (const batch of chunks(t.stmts, 50)) await orgDb.batch(batch);
    });
    console.log(`seeded Orders of ${n} rows in ${ms.toFixed(0)} ms`);
    orders.push({ n, ...t });
  }
  await seeded.dispose();

  api = await startApi({ dir });
  const results = [];
  // Product 0 is in category c0: every order lists it.
  const changed = products.rowIds[0];
  try {
    for (const t of orders) {
      const first = await time(() =>
        api.call("POST", `/table/column/${t.col.Total}/computed/apply`, {
          token: owner.token,
          body: { text: "SUM(LOOKUP({Items}, {Price}))" },
        }),
      );
      if (first.out.updatedRows !== t.n)
        throw new Error(`the rollup's first apply on ${t.n} rows updated ${first.out.updatedRows}`);
      const samples = [];
      for (let run = 0; run < RUNS; run++) {
        const price = 1_000 + run;
        const { ms } = await time(() =>
          api.call("PUT", `/table/row/${changed}/cell/${products.col.Price}`, {
            token: owner.token,
            body: { data: price },
          }),
        );
        samples.push(ms);
        // The write answered: its dependents are current.
        const page = await api.call("GET", `/table/${t.tableId}/rows?limit=1`, { token: owner.token });
        const want = price + [10, 20, 30, 40, 50, 60, 70, 80, 90].reduce((a, b) => a + b + 1, 0);
        if (page.data[0].cells[t.col.Total] !== want)
          throw new Error(`Total after the write is ${page.data[0].cells[t.col.Total]}, expected ${want}`);
      }
      results.push({ n: t.n, first: first.ms, write: median(samples), samples });
      console.log(
        `one product write recomputing ${t.n} rollups: ${samples.map((x) => x.toFixed(0)).join(", ")} ms (first apply ${first.ms.toFixed(0)} ms)`,
      );
    }
  } finally {
    await api.stop();
  }

  const same = await openD1(dir);
  try {
    for (const [i, r] of results.entries()) {
      const t = orders[i];
      const samples = [];
      for (let run = 0; run < RUNS; run++) {
        const cells = t.rowIds.map((rowId) => [rowId, JSON.stringify(2_000 + run)]);
        const db = same.shard(t.tableId);
        const stmts = chunks(cells, CHUNK).map((part) =>
          db
            .prepare(UPSERT_SQL)
            .bind(
              t.tableId,
              "bench",
              Date.now(),
              JSON.stringify(part),
              t.col.Total,
              idPrefix(),
              0,
              suffixBeside(t.tableId),
            ),
        );
        samples.push((await time(() => db.batch(stmts))).ms);
      }
      r.raw = median(samples);
    }
  } finally {
    await same.dispose();
  }
  printTable(
    `One linked row changed: its dependents recomputed vs a raw D1 upsert of the same cells (medians of ${RUNS})`,
    results.map((r) => ({
      dependents: r.n,
      "first apply ms": Math.round(r.first),
      "write + recompute ms": Math.round(r.write),
      "raw upsert ms": Math.round(r.raw),
      ratio: +(r.write / r.raw).toFixed(2),
    })),
  );
  rmSync(dir, { recursive: true, force: true });
}
