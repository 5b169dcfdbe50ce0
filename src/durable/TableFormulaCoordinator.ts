/**
 * One instance per table (`idFromName(tableId)`) serializes everything that computes formula cells of that
 * table: E3 applies and row/cell writes with their recalculation. RPC calls into a Durable Object interleave
 * at every await (D1 calls do not close the input gate), so the methods queue on an explicit promise chain:
 * each run reads, evaluates and writes before the next one reads. Different tables are different instances
 * and run in parallel. A run's work is bounded and done in slices that yield to the event loop (engine.ts), so a
 * costly formula neither passes the Worker's CPU and memory limits nor holds other requests of the isolate.
 */
import { DurableObject } from "cloudflare:workers";
import { z } from "@hono/zod-openapi";
import type { Env } from "../env";
import { createDb } from "../db/client";
import { systemContext, type ServiceContext, learnFromFence } from "../services/context";
import { ApiError, type ErrorCode, type ErrorDetail } from "../errors";
import { IdSchema } from "../schemas/ids";
import { DescriptionSchema, ExpressionSchema } from "../schemas/formula";
import {
  applyFormulaToTable,
  recomputeLookupColumns,
  recomputeRowFormulas,
  type ApplyFormulaResult,
  type RecomputeResult,
} from "../services/formula/engine";

export const ApplyFormulaPayload = z.strictObject({
  tableId: IdSchema,
  columnId: IdSchema,
  description: DescriptionSchema,
  expression: ExpressionSchema,
});
export type ApplyFormulaPayload = z.input<typeof ApplyFormulaPayload>;

export const RecomputeRowsPayload = z.strictObject({
  tableId: IdSchema,
  rowIds: z.array(IdSchema).max(100_000),
  writes: z
    .array(z.strictObject({ rowId: IdSchema, columnId: IdSchema, data: z.unknown() }))
    .max(100_000)
    .optional(),
  /** Also return the rows' stored formula Cell records (row create answers with them, issue 14). */
  returnCells: z.boolean().optional(),
});
export type RecomputeRowsPayload = z.input<typeof RecomputeRowsPayload>;

export const RecomputeLookupsPayload = z.strictObject({
  tableId: IdSchema,
  /** The linked table that changed; absent: every lookup of the table. */
  fromTableId: IdSchema.optional(),
  /** Only the lookups through this relation (its filter changed). */
  relationId: IdSchema.optional(),
});
export type RecomputeLookupsPayload = z.input<typeof RecomputeLookupsPayload>;

/** Errors cross the RPC boundary as data (a thrown error would lose its class), and are rethrown by the caller. */
export type CoordinatorResult<T> =
  { ok: true; value: T } | { ok: false; error: { code: ErrorCode; message: string; details?: ErrorDetail[] } };

export class TableFormulaCoordinator extends DurableObject<Env> {
  private queue: Promise<unknown> = Promise.resolve();

  /** E3 for this table: validate, persist the formula, compute the column and its dependents for every row. */
  async applyFormula(payload: ApplyFormulaPayload): Promise<CoordinatorResult<ApplyFormulaResult>> {
    return this.run(ApplyFormulaPayload, payload, (ctx, input) =>
      applyFormulaToTable(ctx, {
        tableId: input.tableId,
        columnId: input.columnId,
        expression: input.expression,
        description: input.description,
      }),
    );
  }

  /** Store `writes` (if any) and recompute every formula cell of `rowIds` (and the written rows). */
  async recomputeRows(payload: RecomputeRowsPayload): Promise<CoordinatorResult<RecomputeResult>> {
    return this.run(RecomputeRowsPayload, payload, (ctx, input) =>
      recomputeRowFormulas(ctx, {
        tableId: input.tableId,
        rowIds: input.rowIds,
        writes: input.writes,
        returnCells: input.returnCells,
      }),
    );
  }

  /** Recompute this table's lookups into a linked table that changed (docs/api-guide.md › Formulas, "Lookups and rollups"). */
  async recomputeLookups(payload: RecomputeLookupsPayload): Promise<CoordinatorResult<ApplyFormulaResult>> {
    return this.run(RecomputeLookupsPayload, payload, (ctx, input) =>
      recomputeLookupColumns(ctx, {
        tableId: input.tableId,
        fromTableId: input.fromTableId,
        relationId: input.relationId,
      }),
    );
  }

  private run<S extends z.ZodType, T>(
    schema: S,
    payload: unknown,
    work: (ctx: ServiceContext, input: z.output<S>) => Promise<T>,
  ): Promise<CoordinatorResult<T>> {
    const parsed = schema.safeParse(payload);
    if (!parsed.success) {
      const details = parsed.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }));
      return Promise.resolve({
        ok: false,
        error: { code: "ValidationError", message: "Invalid formula coordinator payload", details },
      });
    }
    const next = this.queue.then(async (): Promise<CoordinatorResult<T>> => {
      try {
        // The system acting on its own (no user: the caller checked access), on the shard database of the table.
        const ctx = systemContext(this.env, (parsed.data as { tableId: string }).tableId, {
          waitUntil: (p) => this.ctx.waitUntil(p),
        });
        return { ok: true, value: await work(ctx, parsed.data) };
      } catch (err) {
        if (err instanceof ApiError)
          return {
            ok: false,
            error: { code: err.code, message: err.message, ...(err.details && { details: err.details }) },
          };
        // The table's shard moved (docs/scaling.md "Moving a logical shard"): this object learns where, for the retry.
        await learnFromFence(createDb(this.env.DB), err);
        throw err;
      }
    });
    // The chain continues after a failure; the failure itself reaches this call's caller.
    this.queue = next.catch(() => undefined);
    return next;
  }
}
