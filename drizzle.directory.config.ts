// The directory database's schema (docs/scaling.md "Directory and shards", "Not built yet"): `node scripts/lib/tools.mjs drizzle-kit
// generate --config drizzle.directory.config.ts`. Not used yet: every database takes the full migrations of drizzle.config.ts
// until migrations are split per kind.
export default {
  dialect: "sqlite",
  schema: "./src/db/schema/directory.ts",
  out: "./migrations/directory",
};
