/**
 * The event bus of writes (docs/api-guide.md › Automations, published portals, collaborative editing). Tables, content and documents describe what changed with the shapes below
 * and emit it; consumers subscribe once where the Worker is assembled (src/index.ts: the automations turn events
 * into runs). Dependencies run one way: writers import this module, never the automations
 * (test/shared/import-direction.test.ts).
 */
import type { Env } from "../../env";
import type { AutomationEvent } from "../../schemas/automations";
import { afterResponse, cascadeOf, depthOf, type ServiceContext } from "../context";

export interface EventInput {
  event: AutomationEvent;
  projectId: string;
  tableId?: string;
  rowId?: string;
  /** Columns written (row.updated: the changed ones; row.created: those given a value). */
  columnIds?: readonly string[];
  documentId?: string;
  /** Document ids the event is "in": the document itself, its parent folder, the table's document. */
  documentIds?: readonly string[];
  /** The event's own id, once a consumer has given it one (a retried event keeps it, so it causes each run once). */
  eventId?: string;
}

/**
 * A consumer of events: `depth` is the depth of the run whose writes caused them (0 for a person's request),
 * `cascadeId` the cascade they continue. Answers how many runs (or other effects) it started; never throws.
 */
export type EventConsumer = (
  env: Env,
  events: readonly EventInput[],
  depth: number,
  cascadeId: string | null,
) => Promise<number>;

const consumers: EventConsumer[] = [];

/** Adds a consumer (once; subscribing the same function again changes nothing). */
export function subscribe(consumer: EventConsumer): void {
  if (!consumers.includes(consumer)) consumers.push(consumer);
}

/** Hands `events` to every consumer; the sum of what they started. Never throws. */
export async function emitEvents(
  env: Env,
  events: readonly EventInput[],
  depth = 0,
  cascadeId: string | null = null,
): Promise<number> {
  if (events.length === 0) return 0;
  if (consumers.length === 0) {
    console.error(
      JSON.stringify({ level: "error", msg: "events emitted with no consumer subscribed", events: events.length }),
    );
    return 0;
  }
  const counts = await Promise.all(consumers.map((c) => c(env, events, depth, cascadeId).catch(() => 0)));
  return counts.reduce((a, b) => a + b, 0);
}

/** A row event of `table` (its document, if any, counts for document filters). */
export function rowEvent(
  event: "row.created" | "row.updated" | "row.deleted",
  table: { id: string; projectId: string; documentId: string | null },
  rowId: string,
  columnIds: readonly string[] = [],
): EventInput {
  return {
    event,
    projectId: table.projectId,
    tableId: table.id,
    rowId,
    columnIds,
    documentIds: table.documentId ? [table.documentId] : [],
  };
}

export function documentCreatedEvent(doc: { id: string; projectId: string; parentId: string | null }): EventInput {
  return {
    event: "document.created",
    projectId: doc.projectId,
    documentId: doc.id,
    documentIds: doc.parentId ? [doc.parentId] : [],
  };
}

/** A document's content changed (PUT content, or the collaborative room's write-back, at most every 2 s). */
export function documentUpdatedEvent(doc: { id: string; projectId: string; parentId: string | null }): EventInput {
  return {
    event: "document.updated",
    projectId: doc.projectId,
    documentId: doc.id,
    documentIds: doc.parentId ? [doc.parentId] : [],
  };
}

/** A comment was written (docs/api-guide.md › Comments): on a document, or on a row of a table. */
export function commentEvent(
  event: "comment.created" | "comment.updated" | "comment.deleted" | "comment.resolved" | "comment.reopened",
  target: { projectId: string; documentId: string | null; tableId: string | null; rowId: string | null },
  documentIds: readonly string[],
): EventInput {
  return {
    event,
    projectId: target.projectId,
    ...(target.documentId ? { documentId: target.documentId } : {}),
    ...(target.tableId ? { tableId: target.tableId } : {}),
    ...(target.rowId ? { rowId: target.rowId } : {}),
    documentIds,
  };
}

/**
 * For services: the events of `ctx`'s writes, at its actor's depth and in its cascade. Emission runs after the
 * response (waitUntil) and never changes its D1 round-trip count; a context with an outbox (an automation run)
 * collects them there for its owner to emit once it is recorded.
 */
export function emitAfterResponse(ctx: ServiceContext, events: readonly EventInput[]): void {
  if (!events.length) return;
  if (ctx.outbox) ctx.outbox.push(...events);
  else afterResponse(ctx, () => emitEvents(ctx.env, events, depthOf(ctx.actor), cascadeOf(ctx.actor)));
}
