// Authentication beside a shard database (docs/scaling.md, "Reads stay one round trip of latency"): the token is
// checked in the directory (DB) while the request's read runs in its shard database (here SHARD_1), and no result
// is used before the directory agrees. The request path does not route to shards yet, so these tests build the
// service context the routing will build: `dir` on DB, `db` on SHARD_1, both counted like a request's.
import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  bearerCredential,
  completeAuthentication,
  tokenStatement,
  type AuthAttempt,
} from "../../src/auth/authenticate";
import { createDb } from "../../src/db/client";
import { countingD1, databasesHeader, type RoundTripCounter } from "../../src/db/instrument";
import { rawSelect } from "../../src/db/sql";
import { actingAs, serviceContext, type ServiceContext } from "../../src/services/context";
import { deferAuthentication, read } from "../../src/services/batchedAuth";
import { Principal, type TokenRow } from "../../src/services/principal";
import { callerClaimStatements, claimStatements, type IdempotencyRecord } from "../../src/services/idempotency";
import { ApiError } from "../../src/errors";
import { registerUser, type RegisteredUser } from "../support/harness";

const attempt = (): AuthAttempt => ({ env, address: `198.51.100.${Math.floor(Math.random() * 250)}`, onPrimary: true });

/** A request's context with the directory on DB and its data on SHARD_1, authenticated by `token` in its first read. */
async function shardRequest(token: string, opts: { claimKey?: string } = {}) {
  const counter: RoundTripCounter = { count: 0 };
  const dir = createDb(countingD1(env.DB, counter, "DB"));
  const db = createDb(countingD1(env.SHARD_1!, counter, "SHARD_1"));
  const anonymous = serviceContext(env, dir, { type: "reader" }, { database: (b) => (b === "DB" ? dir : db) });
  // The context on SHARD_1 (the second shard database): its `db` is the counted client above.
  const onShard = anonymous.everyShard().find((shard) => shard.binding === "SHARD_1")!;
  const credential = await bearerCredential(`Bearer ${token}`, attempt());
  const principal = new Principal(credential.hash, null, credential.userId);
  const ctx = actingAs(onShard, principal);
  const claim = opts.claimKey ? { key: opts.claimKey, claim: crypto.randomUUID(), requestHash: "h" } : null;
  const outcome: { record?: IdempotencyRecord } = {};
  deferAuthentication(ctx, {
    token: (d) => tokenStatement(d, credential.hash),
    ...(claim && {
      claims: (d, userId) =>
        userId
          ? callerClaimStatements(d, userId, claim, ctx.now, null)
          : claimStatements(d, credential.hash, claim, ctx.now, null),
    }),
    complete: async ([rows, , records]) => {
      await completeAuthentication(ctx.dir, attempt(), principal, rows as TokenRow[], ctx.now);
      outcome.record = (records as IdempotencyRecord[] | undefined)?.[0];
    },
  });
  return { ctx, counter, principal, outcome };
}

/**
 * A row in SHARD_1 that only the caller's id selects (the shard's copy of its user). The user's tokens are marked
 * used just now, so no lastUsedAt refresh (a write after the check) enters the counts.
 */
async function mirror(user: RegisteredUser) {
  await env.DB.prepare("UPDATE access_tokens SET last_used_at = ? WHERE user_id = ?").bind(Date.now(), user.id).run();
  await env
    .SHARD_1!.prepare(
      "INSERT INTO users (id, email, name, created_at, updated_at) VALUES (?, ?, ?, 0, 0) ON CONFLICT (id) DO NOTHING",
    )
    .bind(user.id, user.email, user.name)
    .run();
}

const callerRow = (ctx: ServiceContext) =>
  rawSelect<{ id: string; email: string }>(
    ctx.db,
    ["id", "email"],
    sql`SELECT id, email FROM users WHERE id = ${ctx.user.ref}`,
  );

describe("the directory's token check beside a shard's read", () => {
  it("a token that names its user: the shard's read and the directory's check at once, one round trip of latency on two databases", async () => {
    const user = await registerUser();
    await mirror(user);
    expect(user.token.startsWith(`cws_${user.id}_`)).toBe(true);
    const { ctx, counter, principal } = await shardRequest(user.token);
    const [rows] = await read(ctx, [callerRow(ctx)]);
    expect(rows).toEqual([{ id: user.id, email: user.email }]);
    expect(principal.resolved && principal.id).toBe(user.id);
    expect(counter.count).toBe(1);
    expect(databasesHeader(counter)).toBe("DB,SHARD_1");
  });

  it("a token the directory does not know: 401, and the shard's rows, read meanwhile, are never returned", async () => {
    const user = await registerUser();
    await mirror(user);
    // The right user id with a secret that was never issued: the shard statement runs for that user…
    const forged = `cws_${user.id}_${"A".repeat(40)}`;
    const { ctx } = await shardRequest(forged);
    const attemptRead = read(ctx, [callerRow(ctx)]);
    // …but the read fails with the directory's verdict instead of answering with them.
    await expect(attemptRead).rejects.toSatisfy(
      (e: unknown) => e instanceof ApiError && e.code === "UnauthorizedError",
    );
  });

  it("a keyed request claims its key in the shard for the user its token names and registers it in the directory, beside the token's check", async () => {
    const user = await registerUser();
    await mirror(user);
    const key = `key-${crypto.randomUUID()}`;
    const { ctx, counter, outcome } = await shardRequest(user.token, { claimKey: key });
    await read(ctx, [callerRow(ctx)]);
    expect(outcome.record?.userId).toBe(user.id);
    expect(counter.count).toBe(1);
    const inShard = await env.SHARD_1!.prepare("SELECT user_id FROM idempotency_keys WHERE key = ?").bind(key).all();
    const inDirectory = await env.DB.prepare("SELECT user_id FROM idempotency_keys WHERE key = ?").bind(key).all();
    expect(inShard.results).toEqual([{ user_id: user.id }]);
    // The directory's row only registers the key (no answer is ever kept there for a shard's request).
    expect(inDirectory.results).toEqual([{ user_id: user.id }]);
  });
});
