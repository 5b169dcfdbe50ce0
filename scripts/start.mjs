// npm start: local D1 migrations, the PDF converter, wrangler dev, the demo tenant, and how to call it.
import path from "node:path";
import { BIN, ROOT, freePort, run, startChild, waitForHttp } from "./lib/proc.mjs";
import { readDevVars, secret, writeDevVars } from "./lib/devvars.mjs";
import { ensureLibreOffice } from "./lib/libreoffice.mjs";
import { seedDemo } from "./seed.mjs";
import { buildAssets } from "./build-assets.mjs";

const port = Number(process.env.PORT || 8787);
const devVarsFile = path.join(ROOT, ".dev.vars");

// ADMIN_TOKEN: the environment, else .dev.vars, else generated once into .dev.vars.
const fileVars = readDevVars(devVarsFile);
let generatedAdmin = false;
const fill = { ...fileVars };
if (!fill.ADMIN_TOKEN) {
  fill.ADMIN_TOKEN = secret("adm_");
  generatedAdmin = true;
}
fill.SIGNING_SECRET ||= secret("sig_");
fill.CONVERTER_SECRET ||= secret("cnv_");
if (JSON.stringify(fill) !== JSON.stringify(fileVars)) writeDevVars(devVarsFile, fill);
const adminToken = process.env.ADMIN_TOKEN || fill.ADMIN_TOKEN;
const vars = { ...fill, ADMIN_TOKEN: adminToken };

buildAssets();
console.log("• Applying D1 migrations to the local database");
run(path.join(BIN, "wrangler"), ["d1", "migrations", "apply", "DB", "--local"], { quiet: true, env: { CI: "1", WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" } });

const children = [];
const shutdown = () => {
  for (const c of children) c.stop();
  process.exit(0);
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);

// The converter first: E6 should work as soon as the API answers.
const officeProblem = ensureLibreOffice();
if (officeProblem) {
  console.warn(`! PDF export (E6) will answer 503: ${officeProblem}`);
} else {
  const converterPort = await freePort();
  const converter = startChild(process.execPath, [path.join(ROOT, "converter", "src", "main.ts")], {
    env: { PORT: String(converterPort), HOST: "127.0.0.1", CONVERTER_SECRET: vars.CONVERTER_SECRET },
    stdio: ["ignore", "inherit", "inherit"],
  });
  children.push(converter);
  try {
    await waitForHttp(`http://127.0.0.1:${converterPort}/health`, { timeoutMs: 90_000, child: converter.child });
    vars.CONVERTER_URL = `http://127.0.0.1:${converterPort}`;
    console.log(`• PDF converter ready on ${vars.CONVERTER_URL}`);
  } catch (err) {
    console.warn(`! The PDF converter did not start (${err.message}); E6 will answer 503`);
  }
}

const varArgs = Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
const wrangler = startChild(
  path.join(BIN, "wrangler"),
  ["dev", "--port", String(port), "--ip", process.env.HOST || "127.0.0.1", "--show-interactive-dev-session=false", ...varArgs],
  { env: { CI: "1", WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" } },
);
children.push(wrangler);
wrangler.child.on("exit", (code) => {
  console.error(`wrangler dev exited (${code})`);
  shutdown();
});

const base = `http://127.0.0.1:${port}`;
await waitForHttp(`${base}/health`, { timeoutMs: 120_000, child: wrangler.child });
const demo = await seedDemo(base, adminToken);

const lines = [
  "",
  `Workspace service running on ${base}   (API reference: ${base}/docs)`,
  process.env.ADMIN_TOKEN
    ? "ADMIN_TOKEN: from the environment"
    : generatedAdmin
      ? `ADMIN_TOKEN (generated into .dev.vars): ${adminToken}`
      : "ADMIN_TOKEN: from .dev.vars",
];
if (demo.token) {
  lines.push(
    `Demo user demo@example.com ${demo.created ? "created" : "already seeded"}; token: ${demo.token}`,
    "",
    "Try:",
    `  curl -s ${base}/me -H "Authorization: Bearer ${demo.token}"`,
    `  curl -s ${base}/document/all/${demo.projectId} -H "Authorization: Bearer ${demo.token}"`,
    `  curl -s ${base}/document/${demo.documentId}/content -H "Authorization: Bearer ${demo.token}"`,
  );
} else {
  lines.push(
    "The demo user exists but its saved token (.wrangler/demo.json) is gone. Register another user:",
    `  curl -s -X POST ${base}/admin/users -H "Authorization: Bearer ${adminToken}" -H "content-type: application/json" -d '{"email":"me@example.com","name":"Me"}'`,
  );
}
console.log(lines.join("\n") + "\n");
