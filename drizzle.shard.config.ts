// The shard databases' schema (docs/scaling.md "Migrations per kind of database"), applied to every SHARD_k:
// `npm run db:generate` runs drizzle-kit with this configuration and drizzle.directory.config.ts. The copies of
// directory tables a shard keeps (users, Idempotency-Key claims) come from copies.ts.
export default {
  dialect: "sqlite",
  schema: ["./src/db/schema/shard.ts", "./src/db/schema/copies.ts"],
  out: "./migrations/shard",
};
