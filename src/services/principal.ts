/**
 * The caller of a request (docs/api-guide.md › Authentication): a Principal, settled from the token's row
 * (TokenRow) once authentication completes, possibly in the same round trip as the first read (batchedAuth.ts).
 * The service context carries it as `ctx.user` (context.ts).
 */
import { sql, type SQL } from "drizzle-orm";
import type { AuthUser } from "../env";
import { ApiError } from "../errors";

/** The row the authentication statement returns (aliased so a D1 batch, which returns objects, keeps every member). */
export interface TokenRow {
  tokenId: string;
  expiresAt: number | null;
  lastUsedAt: number | null;
  userId: string;
  email: string;
  name: string;
  /** Scoped tokens (docs/api-guide.md › Tokens and scopes): JSON text, null for a full token. */
  scopes: string | null;
  resources: string | null;
}

/**
 * The caller of a request. Known from the start for eagerly authenticated routes; for routes that fold
 * authentication into their first read, `ref` lets that read's statements name the caller before the token row comes
 * back, and `settle` completes it from the same round trip: the user id the token carries (`cws_<userId>_<secret>`,
 * docs/api-guide.md › Authentication), checked against the token's row before any result is used.
 */
export class Principal implements AuthUser {
  private user: AuthUser | null;
  constructor(
    readonly tokenHash: string | null,
    user: AuthUser | null = null,
    /** The user id the presented token names, not yet verified (null when no token was presented). */
    readonly claimedUserId: string | null = null,
  ) {
    this.user = user;
  }

  static of(user: AuthUser) {
    return new Principal(null, user);
  }

  static anonymous() {
    return new Principal(null, null);
  }

  get resolved(): boolean {
    return this.user !== null;
  }

  private get known(): AuthUser {
    if (!this.user) throw new ApiError("InternalError", "The caller was used before authentication completed");
    return this.user;
  }

  get id() {
    return this.known._id;
  }
  get _id() {
    return this.known._id;
  }
  get email() {
    return this.known.email;
  }
  get name() {
    return this.known.name;
  }
  get tokenId() {
    return this.known.tokenId;
  }
  get tokenExpiresAt() {
    return this.known.tokenExpiresAt;
  }
  /** The presented token's scopes (null: a full token). */
  get tokenScopes() {
    return this.known.tokenScopes ?? null;
  }

  /**
   * The caller's user id as SQL: a bound value once known or named by the token (results are used only after the
   * token is verified).
   */
  get ref(): SQL {
    if (this.user) return sql`${this.user._id}`;
    if (this.claimedUserId) return sql`${this.claimedUserId}`;
    throw new ApiError("InternalError", "No caller on this request");
  }

  settle(user: AuthUser) {
    this.user = user;
  }
}
