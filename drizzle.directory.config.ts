// The directory database's schema (binding DB; docs/scaling.md "Migrations per kind of database"): `npm run
// db:generate` runs drizzle-kit with this configuration and drizzle.shard.config.ts.
export default {
  dialect: "sqlite",
  schema: "./src/db/schema/directory.ts",
  out: "./migrations/directory",
};
