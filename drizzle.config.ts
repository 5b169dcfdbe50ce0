// drizzle-kit (npm run db:generate) lives in tools/node_modules (scripts/lib/tools.mjs), so this is a plain object.
export default {
  dialect: "sqlite",
  schema: "./src/db/schema/index.ts",
  out: "./migrations",
};
