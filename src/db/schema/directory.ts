// The directory database's tables (binding DB; docs/scaling.md "Directory and shards"): what is global — users,
// tokens, notifications and Idempotency-Key claims (of requests about no organization, and the registration of every
// key), and the index of memberships that lists a user's organizations. drizzle.directory.config.ts generates its
// migrations from this file; shard databases keep a copy of every user (the one directory table they use besides the claims).
export { users, accessTokens, notifications, userOrganizations } from "./identity";
export { idempotencyKeys } from "./http";
export { oauthApps, oauthCodes, oauthRefreshTokens } from "./oauth";
