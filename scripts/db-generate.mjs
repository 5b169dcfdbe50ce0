// npm run db:generate: drizzle-kit for each kind of database (drizzle.directory.config.ts, drizzle.shard.config.ts),
// then the fence's triggers: when the shard tables' declaration (src/tenancy/kernel/tables.ts) asks for triggers the shard
// migrations do not leave, a custom shard migration is made (drizzle-kit generate --custom, so its journal and
// snapshot are drizzle-kit's) and filled with the difference (scripts/lib/fence-triggers.mjs).
import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fenceMigrationSql, fenceTriggerDiff, SHARD_MIGRATIONS } from "./lib/fence-triggers.mjs";
import { run, ROOT } from "./lib/proc.mjs";

const tools = path.join(ROOT, "scripts", "lib", "tools.mjs");
const drizzle = (...args) => run(process.execPath, [tools, "drizzle-kit", "generate", ...args]);

drizzle("--config", "drizzle.directory.config.ts");
drizzle("--config", "drizzle.shard.config.ts");

const diff = fenceTriggerDiff();
if (diff.drop.length === 0 && diff.create.size === 0) {
  console.log("fence triggers: the shard migrations already hold what src/tenancy/kernel/tables.ts declares");
} else {
  const before = new Set(readdirSync(SHARD_MIGRATIONS));
  drizzle("--config", "drizzle.shard.config.ts", "--custom", "--name", "fence_triggers");
  const made = readdirSync(SHARD_MIGRATIONS).find((f) => f.endsWith(".sql") && !before.has(f));
  if (!made) throw new Error("drizzle-kit made no custom migration for the fence triggers");
  writeFileSync(path.join(SHARD_MIGRATIONS, made), fenceMigrationSql(diff));
  console.log(`fence triggers: migrations/shard/${made} drops ${diff.drop.length} and creates ${diff.create.size}`);
}
