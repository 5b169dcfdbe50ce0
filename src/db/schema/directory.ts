// The directory database's tables (binding DB; docs/scaling.md "Directory and shards"): what is global — users,
// tokens, notifications and Idempotency-Key claims (of requests about no organization, and the registration of every
// key). drizzle.directory.config.ts generates its migrations from this file. Every database still takes the full
// migrations today; shard databases keep a copy of every user (the one directory table they use besides the claims).
export { users, accessTokens, notifications } from "./identity";
export { idempotencyKeys } from "./http";
