// The directory database's tables (binding DB once the service is sharded; docs/scaling.md "Plan", step 1): what is
// global — users, tokens, organizations with their logical shard, memberships, notifications, email invitations and
// Idempotency-Key claims. drizzle.directory.config.ts generates its migrations from this file. Not yet wired: the
// live schema is still src/db/schema/index.ts, one database.
export { users, accessTokens, organizations, organizationMembers, notifications, memberInvitations } from "./identity";
export { invitations } from "./documents";
export { idempotencyKeys } from "./http";
