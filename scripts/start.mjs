// npm start: check the ports, apply the local D1 migrations, start the PDF converter and wrangler dev, seed
// the demo tenant, print (and write to .dev/env.sh) the export lines the README tour uses. Any failure stops
// every child; an expected failure (taken port, …) is one line and exit code 1. Steps: scripts/lib/service.mjs.
import path from "node:path";
import { runMain } from "./lib/errors.mjs";
import { createSupervisor } from "./lib/children.mjs";
import { exportLines, tourVariables, writeEnvFile } from "./lib/envfile.mjs";
import { schedulerDevArgs, startScheduler } from "./lib/scheduler.mjs";
import { applyMigrations, checkPorts, loadSecrets, readSettings, seed, startConverter, startWorker } from "./lib/service.mjs";

const sup = createSupervisor();

async function stopAndExit(code) {
  await sup.stopAll();
  process.exit(code);
}
process.on("SIGINT", () => void stopAndExit(130));
process.on("SIGTERM", () => void stopAndExit(143));
process.on("SIGHUP", () => void stopAndExit(129));

async function main() {
  const settings = readSettings();
  await checkPorts(settings);
  const secrets = loadSecrets(settings);
  applyMigrations(settings);

  // The converter first: E6 should work as soon as the API answers.
  const converterUrl = await startConverter(sup, settings, secrets);
  const vars = { ...secrets.vars, ...(converterUrl && { CONVERTER_URL: converterUrl }) };
  const worker = await startWorker(sup, settings, vars, { extraArgs: schedulerDevArgs() });
  // Automations: the Cron Trigger's every-minute tick, locally (scripts/lib/scheduler.mjs).
  startScheduler(worker.base);
  const demo = await seed(worker.base, secrets, settings);

  // From here on the service runs until Ctrl-C; wrangler stopping on its own is a failure.
  worker.child.on("exit", (code, signal) => {
    if (sup.stopping) return;
    console.error(`\n✗ wrangler dev stopped (${code ?? signal}); stopping the converter too.`);
    void stopAndExit(1);
  });

  const vars2 = tourVariables({ base: worker.base, adminToken: secrets.adminToken, demo });
  writeEnvFile(settings.envFile, vars2);
  const rel = path.relative(process.cwd(), settings.envFile);
  const envFileShown = rel && !rel.startsWith("..") ? rel : settings.envFile;
  console.log(
    [
      "",
      `Workspace service running on ${worker.base}   (API reference: ${worker.base}/docs)`,
      `Demo user ${demo.email ?? "demo@example.com"} ${demo.created ? "created" : "already seeded"}; token: ${demo.token}`,
      `ADMIN_TOKEN (registers users with POST /admin/users) is kept in ${secrets.adminSource}.`,
      "",
      `For the README tour, in another shell:   source ${envFileShown}   (or paste these lines)`,
      ...exportLines(vars2).map((l) => `  ${l}`),
      "",
      `Try:  curl -sS ${worker.base}/me -H "Authorization: Bearer $TOKEN"`,
      "Stop: Ctrl-C (stops the converter and wrangler too)",
      "",
    ].join("\n"),
  );
}

await runMain(main, { cleanup: () => sup.stopAll() });
