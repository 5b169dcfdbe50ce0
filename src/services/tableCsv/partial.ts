/**
 * mode "partial" (docs/api-guide.md › CSV import and export): a row with a problem is reported by its line and
 * skipped; the valid rows are staged hidden as they stream, in batches of at most CELLS_PER_BATCH cells, and made
 * live together in one final batch with the import's answer (./stage), so a crash never leaves some rows live
 * without the answer a retry would get (docs/api-guide.md › HTTP semantics). An import that fails as a whole (the
 * body over 50 MiB, not UTF-8, a failed write) leaves nothing. Formulas are recomputed and events sent after the commit.
 */
import type { ServiceContext } from "../context";
import { tooManyRows, Problems, type ImportPlan } from "./plan";
import type { RowProblem } from "./records";
import { staged } from "./stage";
import { convertRecord, type RowValues } from "./targets";

export interface WriteOutcome {
  imported: number;
  failed: number;
  errors: RowProblem[];
}

/** `answer(outcome)`: the request's answer, kept for its Idempotency-Key with the commit. */
export async function importPartial(
  ctx: ServiceContext,
  plan: ImportPlan,
  skipped: () => readonly RowProblem[],
  answer: (outcome: WriteOutcome) => unknown,
): Promise<WriteOutcome> {
  const problems = new Problems();
  const stage = await staged(
    ctx,
    plan,
    async (write) => {
      let batch: RowValues[] = [];
      let seen = 0;
      for await (const rec of plan.records) {
        if (++seen > plan.maxRows) {
          problems.report([tooManyRows(plan, rec)]);
          break;
        }
        const out = convertRecord(plan.targets, rec);
        if ("problems" in out) {
          problems.report(out.problems);
          continue;
        }
        batch.push(out.values);
        if (batch.length >= plan.batchRows) {
          await write(batch);
          batch = [];
        }
      }
      // Records the parser itself could not read (a stray quote, an over-long record) are problems of their lines too.
      for (const p of skipped()) problems.report([p]);
      problems.list.sort((a, b) => a.line - b.line);
      return batch;
    },
    (imported) => answer(outcomeOf(imported, problems)),
  );
  await stage.announce();
  return outcomeOf(stage.rowIds.length, problems);
}

const outcomeOf = (imported: number, problems: Problems): WriteOutcome => ({
  imported,
  failed: problems.failed,
  errors: problems.list,
});
