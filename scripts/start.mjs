// npm start: check the ports, apply the local D1 migrations, start the PDF converter and wrangler dev, seed
// the demo tenant, print (and write to .dev/env.sh) the export lines the README tour uses. Any failure stops
// every child; an expected failure (taken port, …) is one line and exit code 1. Steps: scripts/lib/service.mjs.
// However this script ends (Ctrl-C, SIGTERM, a closed terminal, even SIGKILL) its children end with it.
import path from "node:path";
import { runMain } from "./lib/errors.mjs";
import { createSupervisor } from "./lib/children.mjs";
import { exportLines, tourVariables, writeEnvFile } from "./lib/envfile.mjs";
import { schedulerDevArgs, startScheduler } from "./lib/scheduler.mjs";
import { startInbox } from "./lib/inbox.mjs";
import {
  applyMigrations,
  checkPorts,
  launchConverter,
  loadSecrets,
  readSettings,
  seed,
  startWorker,
} from "./lib/service.mjs";

const sup = createSupervisor();

async function stopAndExit(code) {
  await sup.stopAll();
  process.exit(code);
}
process.on("SIGINT", () => void stopAndExit(130));
process.on("SIGTERM", () => void stopAndExit(143));
process.on("SIGHUP", () => void stopAndExit(129));
// npm itself killed (SIGKILL): this script is re-parented; stop too rather than run on unseen. (If this script
// is killed, the supervisor's watchdog stops the children: scripts/lib/children.mjs.)
const parentPid = process.ppid;
setInterval(() => {
  if (process.ppid !== parentPid) void stopAndExit(129);
}, 1000).unref();

async function main() {
  const settings = readSettings();
  await checkPorts(settings);
  const secrets = loadSecrets(settings);
  // The converter boots (LibreOffice, a few seconds) while the migrations apply and wrangler dev starts: its URL
  // is known before it answers, and both are ready before the demo is seeded and the service announced, so E6
  // works from the first call.
  const converter = await launchConverter(sup, settings, secrets);
  await applyMigrations(settings);
  // The local webhook inbox (scripts/lib/inbox.mjs), exempt from the webhook address rules like any origin
  // listed in WEBHOOK_ALLOWED_ORIGINS of your environment.
  const inbox = await startInbox({ port: settings.inboxPort });
  const origins = [process.env.WEBHOOK_ALLOWED_ORIGINS, inbox.url].filter(Boolean).join(",");
  // Browser apps on these origins may call the API (CORS, src/http/cors.ts); none unless your environment lists some.
  const cors = settings.corsAllowedOrigins ? { CORS_ALLOWED_ORIGINS: settings.corsAllowedOrigins } : {};
  const vars = {
    ...secrets.vars,
    WEBHOOK_ALLOWED_ORIGINS: origins,
    ...cors,
    ...(converter && { CONVERTER_URL: converter.url }),
  };
  const [worker] = await Promise.all([
    startWorker(sup, settings, vars, { extraArgs: schedulerDevArgs() }),
    converter?.ready,
  ]);
  // Automations: the Cron Trigger's every-minute tick, locally (scripts/lib/scheduler.mjs).
  startScheduler(worker.base);
  const demo = await seed(worker.base, secrets, settings);

  // From here on the service runs until Ctrl-C; wrangler stopping on its own is a failure.
  worker.child.on("exit", (code, signal) => {
    if (sup.stopping) return;
    console.error(`\n✗ wrangler dev stopped (${code ?? signal}); stopping the converter too.`);
    void stopAndExit(1);
  });

  const vars2 = tourVariables({ base: worker.base, adminToken: secrets.adminToken, demo, inbox: inbox.url });
  writeEnvFile(settings.envFile, vars2);
  const rel = path.relative(process.cwd(), settings.envFile);
  const envFileShown = rel && !rel.startsWith("..") ? rel : settings.envFile;
  console.log(
    [
      "",
      `Workspace service running on ${worker.base}   (API reference: ${worker.base}/docs)`,
      `Webhook inbox on ${inbox.url} (allowed as a webhook origin; GET ${inbox.url}/received lists what arrived)`,
      settings.corsAllowedOrigins
        ? `Browser apps allowed to call the API (CORS_ALLOWED_ORIGINS): ${settings.corsAllowedOrigins}`
        : "No browser origin may call the API cross-origin (set CORS_ALLOWED_ORIGINS to allow some)",
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
