/**
 * Webhook deliveries (docs/api-guide.md › Automations, published portals, collaborative editing): the outbox rows written by webhook actions, sent by the Queue consumer.
 * Signed per Standard Webhooks by its reference library (`standardwebhooks`): `webhook-id` (the delivery id, the same on every attempt), `webhook-timestamp`
 * (Unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, keyed with the
 * decoded bytes of the automation's `whsec_` secret. A network error, 408, 429 or 5xx is retried on the schedule
 * below (a longer Retry-After wins) through the Queue's delaySeconds; anything else is final.
 * A delivery lives in the shard database its id names (beside its automation and run); the owner's notice of a
 * failed one goes to the directory through the shard's outbox, written in the batch that records the failure
 * (docs/scaling.md "Notifications: an outbox").
 */
import { and, eq, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { Webhook } from "standardwebhooks";
import { automationDeliveries, automations, type DeliveryAttempt } from "../../db/schema";
import type { Env } from "../../env";
import { createDb } from "../../db/client";
import { newId } from "../../lib/ids";
import { openSecret } from "../../lib/crypto";
import { sendTimeCheck } from "./ssrf";
import { ownerNoticeStatement } from "./notify";
import { deliverAtOnce, noticeId, outboxNotices } from "../notifications/outbox";
import { d1Holding } from "../context";

/** Seconds before each retry: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (8 attempts in all). */
export const RETRY_SCHEDULE_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 36000] as const;
export const TIMEOUT_MS = 15_000;
/** Queues cap delaySeconds at 12 hours. */
const MAX_DELAY_SECONDS = 43_200;

function retryAfterSeconds(value: string | null, now: number): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

export type DeliveryOutcome = { state: "delivered" | "failed" | "gone" } | { state: "retry"; delaySeconds: number };

/** How long a claim holds a delivery: past the send timeout and the DNS check, so a dead attempt frees it. */
export const CLAIM_MS = 60_000;

/**
 * The claim that makes a delivery one attempt at a time: one conditional UPDATE, true for one caller only.
 * A pending delivery whose claim is free (or has lapsed) is taken; `token` lets a redelivery's queued attempt
 * use the claim the redelivery took. `on`: the deliveries' table (an automation's, or a webhook subscription's).
 */
export function claimCondition(
  now: number,
  token?: string,
  on: { claimedUntil: SQLiteColumn; claimToken: SQLiteColumn } = automationDeliveries,
) {
  const free = sql`(${on.claimedUntil} IS NULL OR ${on.claimedUntil} < ${now})`;
  return token ? sql`(${free} OR ${on.claimToken} = ${token})` : free;
}

/** A redelivery's claim: the delivery pending again from the schedule's first step, held by `token` for CLAIM_MS. */
export function redeliveryClaim(now: number, token: string) {
  return {
    status: "pending" as const,
    retryIndex: 0,
    nextAttemptAt: now,
    claimToken: token,
    claimedUntil: now + CLAIM_MS,
    updatedAt: now,
  };
}

/** What one signed send came to: the attempt as recorded, and whether (and after how long at least) to try again. */
export interface SentWebhook {
  attempt: DeliveryAttempt;
  retryable: boolean;
  retryAfter: number | null;
}

/**
 * One Standard Webhooks send, shared by automation deliveries and webhook subscriptions (services/webhooks/): the
 * send-time URL rule, the sealed secret opened, the signed request with its timeout, no redirects followed.
 */
export async function sendSignedWebhook(
  env: Env,
  d: {
    id: string;
    url: string;
    method: string;
    headers: Record<string, string>;
    body: string;
    sealedSecret: string;
    secretContext: string;
    /** Named in the error when the secret cannot be opened. */
    owner: string;
  },
): Promise<SentWebhook> {
  const started = Date.now();
  const attempt: DeliveryAttempt = { at: started, durationMs: 0 };
  let retryable = false;
  let retryAfter: number | null = null;
  const refusal = await sendTimeCheck(d.url, env);
  const refused = refusal?.reason ?? null;
  // A secret sealed under another SIGNING_SECRET cannot sign: the delivery fails (not retried) and says why.
  const secret = refused
    ? null
    : await openSecret(env.SIGNING_SECRET, d.sealedSecret, d.secretContext).catch(() => null);
  if (refused) {
    attempt.error = refused;
    // A DNS lookup that failed is tried again like a network error; an address refused is final.
    retryable = refusal!.retryable;
  } else if (secret === null) {
    attempt.error = `the ${d.owner}'s webhook secret cannot be opened with this deployment's SIGNING_SECRET: rotate the secret`;
  } else {
    const timestamp = Math.floor(started / 1000);
    const hasBody = d.method !== "GET";
    const headers = new Headers(d.headers);
    headers.set("content-type", "application/json");
    headers.set("user-agent", "workspace-edge-webhooks/1");
    headers.set("webhook-id", d.id);
    headers.set("webhook-timestamp", String(timestamp));
    headers.set("webhook-signature", new Webhook(secret).sign(d.id, new Date(timestamp * 1000), hasBody ? d.body : ""));
    try {
      // Redirects are not followed: a 3xx could point anywhere, including addresses the URL rules refuse.
      const res = await fetch(d.url, {
        method: d.method,
        headers,
        body: hasBody ? d.body : undefined,
        redirect: "manual",
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      await res.body?.cancel();
      attempt.httpStatus = res.status;
      retryable = res.status === 408 || res.status === 429 || res.status >= 500;
      if (retryable) retryAfter = retryAfterSeconds(res.headers.get("retry-after"), Date.now());
    } catch (err) {
      attempt.error =
        (err as Error).name === "TimeoutError"
          ? `timed out after ${TIMEOUT_MS / 1000} s`
          : `network error: ${(err as Error).message}`;
      retryable = true;
    }
  }
  attempt.durationMs = Date.now() - started;
  return { attempt, retryable, retryAfter };
}

/** After a send at position `retryIndex` of the retry schedule: delivered, to be retried (after how long), or failed. */
export function nextStep(sent: SentWebhook, retryIndex: number) {
  const { attempt } = sent;
  const delivered = attempt.httpStatus !== undefined && attempt.httpStatus >= 200 && attempt.httpStatus < 300;
  const canRetry = !delivered && sent.retryable && retryIndex < RETRY_SCHEDULE_SECONDS.length;
  const delaySeconds = canRetry
    ? Math.min(MAX_DELAY_SECONDS, Math.max(RETRY_SCHEDULE_SECONDS[retryIndex]!, sent.retryAfter ?? 0))
    : 0;
  return { delivered, canRetry, delaySeconds };
}

/** One attempt of a pending delivery: claimed before it is sent, recorded after; says whether (and when) to try again. */
// eslint-disable-next-line max-lines-per-function -- one delivery attempt from claim to recorded outcome; each step's failure is recorded in place
export async function attemptDelivery(env: Env, deliveryId: string, claimToken?: string): Promise<DeliveryOutcome> {
  const d1 = d1Holding(env, deliveryId);
  const db = createDb(d1);
  const token = newId();
  const now = Date.now();
  const [claimed] = await db
    .update(automationDeliveries)
    .set({ claimToken: token, claimedUntil: now + CLAIM_MS })
    .where(
      and(
        eq(automationDeliveries.id, deliveryId),
        eq(automationDeliveries.status, "pending"),
        claimCondition(now, claimToken),
      ),
    )
    .returning({ id: automationDeliveries.id });
  if (!claimed) return { state: "gone" };
  const [found] = await db
    .select({
      delivery: automationDeliveries,
      secret: automations.webhookSecret,
      ownerId: automations.ownerId,
      name: automations.name,
    })
    .from(automationDeliveries)
    .innerJoin(automations, eq(automations.id, automationDeliveries.automationId))
    .where(eq(automationDeliveries.id, deliveryId));
  if (!found || found.delivery.claimToken !== token) return { state: "gone" };
  const d = found.delivery;
  const sent = await sendSignedWebhook(env, {
    id: d.id,
    url: d.url,
    method: d.method,
    headers: d.headers,
    body: d.body,
    sealedSecret: found.secret,
    secretContext: d.automationId,
    owner: "automation",
  });
  const { attempt } = sent;
  const { delivered, canRetry, delaySeconds } = nextStep(sent, d.retryIndex);
  const status = delivered ? "delivered" : canRetry ? "pending" : "failed";
  const t = Date.now();
  // Told once: the notice of a failure goes to the outbox in the batch that records it, before the update and only
  // while this attempt's claim still holds; its id derives from the delivery (failDeliveryForGood's is the same).
  const record = db
    .update(automationDeliveries)
    .set({
      status,
      attempts: [...d.attempts, attempt].slice(-50),
      retryIndex: canRetry ? d.retryIndex + 1 : d.retryIndex,
      nextAttemptAt: canRetry ? t + delaySeconds * 1000 : null,
      claimToken: null,
      claimedUntil: null,
      updatedAt: t,
    })
    .where(and(eq(automationDeliveries.id, d.id), eq(automationDeliveries.claimToken, token)));
  if (status !== "failed") await record;
  else {
    // Told once: the notice goes to the outbox in the batch that records the failure, before the update and only
    // while this attempt's claim still holds; its id derives from the delivery (failDeliveryForGood's is the same).
    const notice = {
      id: noticeId(d.id, "automation.webhook.failed"),
      userId: found.ownerId,
      kind: "automation.webhook.failed",
      title: `A webhook of "${found.name}" failed`,
      body: `${d.method} ${d.url}: ${attempt.error ?? `HTTP ${attempt.httpStatus}`}`,
      data: { automationId: d.automationId, runId: d.runId, deliveryId: d.id },
      createdAt: t,
    };
    const claimHolds = sql`EXISTS (SELECT 1 FROM automation_deliveries d WHERE d.id = ${d.id} AND d.claim_token = ${token})`;
    const [inserted] = await db.batch([outboxNotices(db, [notice], t, claimHolds), record]);
    await deliverAtOnce(env, d1, inserted);
  }
  return canRetry ? { state: "retry", delaySeconds } : { state: delivered ? "delivered" : "failed" };
}

/** Dead-lettered delivery: failed for good, and its owner told (through the outbox, in the batch that fails it). */
export async function failDeliveryForGood(env: Env, deliveryId: string, reason: string): Promise<void> {
  const d1 = d1Holding(env, deliveryId);
  const db = createDb(d1);
  const t = Date.now();
  const notice = {
    id: noticeId(deliveryId, "automation.webhook.failed"),
    automation: sql`SELECT d.automation_id FROM automation_deliveries d WHERE d.id = ${deliveryId}`,
    kind: "automation.webhook.failed",
    title: 'A webhook of "{name}" failed',
    body: reason,
    data: sql`(SELECT json_object('runId', d.run_id, 'deliveryId', d.id) FROM automation_deliveries d WHERE d.id = ${deliveryId})`,
    at: t,
  };
  const pending = sql`EXISTS (SELECT 1 FROM automation_deliveries d WHERE d.id = ${deliveryId} AND d.status = 'pending')`;
  const [inserted] = await db.batch([
    ownerNoticeStatement(db, notice, t, pending),
    db
      .update(automationDeliveries)
      .set({ status: "failed", nextAttemptAt: null, updatedAt: t })
      .where(and(eq(automationDeliveries.id, deliveryId), eq(automationDeliveries.status, "pending"))),
  ]);
  await deliverAtOnce(env, d1, inserted);
}
