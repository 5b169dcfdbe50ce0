/**
 * mode "atomic" (docs/api-guide.md › CSV import and export): all rows or none, without holding the rows in memory.
 * Rows are staged hidden as they stream and made live in one final batch with the import's answer (./stage). On any
 * failure (a bad row — the rest is still read and checked so the 422 lists every problem —, the cells bound, an
 * unreadable record, a failed write) what was staged is deleted: nothing is left behind.
 *
 * What stays in memory is the ids of the staged rows (for the recomputation and the events), not their values.
 */
import { ApiError } from "../../errors";
import type { ServiceContext } from "../context";
import { MAX_CSV_CELLS, Problems, tooManyRows, type ImportPlan } from "./plan";
import { problemsError } from "./records";
import { staged } from "./stage";
import { convertRecord, type RowValues } from "./targets";

/** `answer(imported)`: the request's answer, kept for its Idempotency-Key with the commit. */
export async function importAtomic(
  ctx: ServiceContext,
  plan: ImportPlan,
  answer: (imported: number) => unknown,
): Promise<{ imported: number }> {
  const stage = await staged(
    ctx,
    plan,
    async (write) => {
      const problems = new Problems();
      let batch: RowValues[] = [];
      let seen = 0;
      for await (const rec of plan.records) {
        if (++seen > plan.maxRows) {
          const p = tooManyRows(plan, rec);
          throw new ApiError(
            "PayloadTooLargeError",
            `An import has at most ${MAX_CSV_CELLS} cells (rows × columns); line ${p.line} is past it and nothing was written`,
            {
              details: [{ path: `line ${p.line}`, message: p.message, line: p.line }],
            },
          );
        }
        const out = convertRecord(plan.targets, rec);
        if ("problems" in out) problems.report(out.problems);
        // Once a row has failed nothing more is written: the rest is only read and checked, for the answer.
        else if (problems.failed === 0) {
          batch.push(out.values);
          if (batch.length >= plan.batchRows) {
            await write(batch);
            batch = [];
          }
        }
      }
      if (problems.failed > 0)
        throw problemsError(
          `${problems.failed} row(s) cannot be imported; nothing was written (first at line ${problems.list[0]!.line})`,
          problems.list,
        );
      return batch;
    },
    answer,
  );
  await stage.announce();
  return { imported: stage.rowIds.length };
}
