// OAuth 2.1 for third-party apps (docs/api-guide.md › OAuth apps): directory tables, since the token endpoint knows
// only a client id and the grants it issues are access tokens, which live in the directory too. An app belongs to the
// organization whose owner or admin registered it (that organization lives on a shard: no foreign key to it).
import { sqliteTable, text, integer, index } from "drizzle-orm/sqlite-core";
import { users, type TokenResources } from "./identity";

export const oauthApps = sqliteTable(
  "oauth_apps",
  {
    /** The client id. */
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    name: text("name").notNull(),
    /** The exact redirect URIs `/oauth/authorize` accepts. */
    redirectUris: text("redirect_uris", { mode: "json" }).notNull().$type<string[]>(),
    /** SHA-256 of the client secret (shown once). */
    secretHash: text("secret_hash").notNull(),
    createdBy: text("created_by")
      .notNull()
      .references(() => users.id),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("oauth_apps_org_idx").on(t.organizationId)],
);

/** What a user approved, waiting for the app to redeem it: single use, short-lived, bound to a PKCE challenge. */
export const oauthCodes = sqliteTable(
  "oauth_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    clientId: text("client_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    redirectUri: text("redirect_uri").notNull(),
    codeChallenge: text("code_challenge").notNull(),
    scopes: text("scopes", { mode: "json" }).notNull().$type<string[]>(),
    resources: text("resources", { mode: "json" }).$type<TokenResources>(),
    expiresAt: integer("expires_at").notNull(),
    /** The approving token's expiry (null: none): the grant's tokens never outlive it. */
    grantExpiresAt: integer("grant_expires_at"),
    /** When it was redeemed; a second redemption revokes the grant it produced (`grantId`). */
    usedAt: integer("used_at"),
    grantId: text("grant_id"),
  },
  (t) => [index("oauth_codes_client_idx").on(t.clientId), index("oauth_codes_expires_idx").on(t.expiresAt)],
);

/**
 * Refresh tokens, one row per token ever issued: a grant (`grantId`, the family) rotates them, and each row names
 * the access token issued with it, so revoking the family revokes its access tokens too.
 */
export const oauthRefreshTokens = sqliteTable(
  "oauth_refresh_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    grantId: text("grant_id").notNull(),
    clientId: text("client_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    scopes: text("scopes", { mode: "json" }).notNull().$type<string[]>(),
    resources: text("resources", { mode: "json" }).$type<TokenResources>(),
    accessTokenId: text("access_token_id").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    /** The approving token's expiry (null: none): no token of the grant outlives it. */
    grantExpiresAt: integer("grant_expires_at"),
    /** When it was exchanged for a new one: presenting it again revokes the whole grant. */
    rotatedAt: integer("rotated_at"),
  },
  (t) => [
    index("oauth_refresh_grant_idx").on(t.grantId),
    index("oauth_refresh_client_idx").on(t.clientId),
    // The per-minute upkeep finds expired rows by it (src/services/oauth/prune.ts).
    index("oauth_refresh_expires_idx").on(t.expiresAt),
  ],
);
