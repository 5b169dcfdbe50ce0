import type { Db, Env } from "../../env";

/**
 * THE HOOK FOR FORMULA RECALCULATION (API.md §7 "Formula cells of the row are recomputed in the same request", §8).
 *
 * Called, and awaited, by every write that changes stored cell values — row create, bulk row create and cell
 * upsert — after their D1 batch has committed, with the ids of the rows written. The formula engine (E3) replaces
 * this body: recompute and store the formula cells of those rows (serialized per table as §8 requires). It must
 * not throw for a row whose formula fails to evaluate (that row stores an error value instead).
 *
 * Until then it does nothing: formula columns can be created (`data.type: "formula"`) and their cells are
 * read-only, but nothing computes them.
 */
export async function recomputeRowFormulas(db: Db, env: Env, tableId: string, rowIds: readonly string[]): Promise<void> {
  void db;
  void env;
  void tableId;
  void rowIds;
}
