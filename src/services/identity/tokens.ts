import { and, eq } from "drizzle-orm";
import { accessTokens } from "../../db/schema";
import { notFound, validation } from "../../errors";
import type { TokenResources } from "../../db/schema";
import { narrowScopes, resolveResources } from "./tokenScopes";
import { userTokensStatement } from "./queries";
import { read, type ServiceContext } from "../context";
import { keptAnswerStatements } from "../idempotency";
import { d1Of, statement } from "../../db/d1";
import { randomBase62, sha256Hex } from "../../lib/crypto";
import { newId } from "../../lib/ids";
import { recordTokenEvent } from "../audit/log";

export const TOKEN_PREFIX = "cws_";

export interface IssuedToken {
  _id: string;
  name: string;
  token: string;
  createdAt: number;
  expiresAt: number | null;
  scopes: string[] | null;
  resources: string[] | null;
}

/** Ids a scoped token may be limited to (docs/api-guide.md › Limits). */
export const MAX_TOKEN_RESOURCES = 50;

/**
 * A new secret and the statement that stores only its hash (so callers can batch it with other writes). The token
 * names its user (`cws_<userId>_<secret>`, docs/api-guide.md › Authentication), so a request can be sent to the
 * user's data while the directory verifies the token (docs/scaling.md); the hash covers the whole token.
 */
export async function prepareToken(
  ctx: ServiceContext,
  input: {
    userId: string;
    name: string;
    expiresAt: number | null;
    scopes?: string[] | null;
    resources?: TokenResources | null;
  },
) {
  const { userId, name, expiresAt } = input;
  const token = `${TOKEN_PREFIX}${userId}_${randomBase62(40)}`;
  const scopes = input.scopes ?? null;
  const resources = input.resources ?? null;
  const record: IssuedToken = {
    _id: newId(),
    name,
    token,
    createdAt: ctx.now,
    expiresAt,
    scopes,
    resources: resources?.ids ?? null,
  };
  const insert = ctx.db.insert(accessTokens).values({
    id: record._id,
    userId,
    name,
    tokenHash: await sha256Hex(token),
    createdAt: record.createdAt,
    expiresAt,
    scopes,
    resources,
  });
  return { record, insert };
}

export function tokenDto(row: typeof accessTokens.$inferSelect) {
  return {
    _id: row.id,
    name: row.name,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    lastUsedAt: row.lastUsedAt,
    scopes: row.scopes ?? null,
    resources: row.resources?.ids ?? null,
  };
}

/** The caller's tokens, newest first, without secrets (one round trip with authentication). */
export async function listTokens(ctx: ServiceContext) {
  const [rows] = await read(ctx, [userTokensStatement(ctx.db, ctx.user.ref)]);
  return rows.map(tokenDto);
}

/**
 * Issues a token for the caller. A token cannot mint one that outlives it, or expiry could be escaped by
 * re-issuing: with an expiring token, the new one expires no later than it.
 */
export async function createToken(
  ctx: ServiceContext,
  input: { name: string; expiresAt?: number | null; scopes?: string[]; resources?: string[] },
): Promise<IssuedToken> {
  const { expiresAt } = input;
  if (expiresAt != null && expiresAt <= ctx.now)
    throw validation("expiresAt must be in the future", [{ path: "expiresAt", message: "in the past" }]);
  const limit = ctx.user.tokenExpiresAt;
  const effective = limit === null ? (expiresAt ?? null) : Math.min(expiresAt ?? limit, limit);
  const scopes = narrowScopes(ctx.user.tokenScopes, input.scopes);
  const resources = await resolveResources(ctx, input.resources);
  const { record, insert } = await prepareToken(ctx, {
    userId: ctx.user.id,
    name: input.name,
    expiresAt: effective,
    scopes,
    resources,
  });
  // A keyed request keeps its answer (sealed) in the same batch as the token, so a crash cannot separate them.
  const d1 = d1Of(ctx.db);
  const kept = await keptAnswerStatements(ctx, { d1, payload: { data: record } });
  if (kept.length === 0) await insert;
  else {
    const { sql, params } = insert.toSQL();
    await d1.batch([statement(d1, sql, ...params), ...kept]);
  }
  const changes = { name: { before: null, after: record.name }, scopes: { before: null, after: record.scopes } };
  recordTokenEvent(ctx, { kind: "token.created", tokenId: record._id, changes }, reachOf(ctx.user.id, resources));
  return record;
}

/** The organizations a token's entries go to: those its resources lie in, else all of its user's. */
function reachOf(userId: string, resources: TokenResources | null) {
  return resources ? { resourceIds: resources.ids } : { userId };
}

/** Revokes one of the caller's tokens at once; another user's token is 404 like a missing one. */
export async function revokeToken(ctx: ServiceContext, { tokenId }: { tokenId: string }) {
  const rows = await ctx.db
    .delete(accessTokens)
    .where(and(eq(accessTokens.id, tokenId), eq(accessTokens.userId, ctx.user.id)))
    .returning({ id: accessTokens.id, name: accessTokens.name, resources: accessTokens.resources });
  if (rows.length === 0) throw notFound("Token");
  const changes = { name: { before: rows[0]!.name, after: null } };
  recordTokenEvent(ctx, { kind: "token.revoked", tokenId, changes }, reachOf(ctx.user.id, rows[0]!.resources));
}
