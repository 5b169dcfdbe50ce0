// The directory database's schema (docs/scaling.md "Plan", steps 1–2): `node scripts/lib/tools.mjs drizzle-kit
// generate --config drizzle.directory.config.ts`. Not used yet: the live schema is drizzle.config.ts (one database)
// until the request path is sharded.
export default {
  dialect: "sqlite",
  schema: "./src/db/schema/directory.ts",
  out: "./migrations/directory",
};
