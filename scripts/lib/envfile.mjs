// The export lines npm start prints and writes to .dev/env.sh, so `source .dev/env.sh` sets up a shell for
// the README tour. Names are a contract (README sections and scripts/readme-tour.mjs rely on them).
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

const shellQuote = (v) => (/^[A-Za-z0-9_./:@%+=,-]*$/.test(v) ? v : `'${String(v).replaceAll("'", "'\\''")}'`);

/** [name, value] pairs in a fixed order: BASE TOKEN ADMIN_TOKEN ORG_ID WS_ID PROJECT_ID FOLDER_ID DOC_ID TABLE_ID WEBHOOK_INBOX. */
export function tourVariables({ base, adminToken, demo, inbox }) {
  return [
    ["BASE", base],
    ["TOKEN", demo.token],
    ["ADMIN_TOKEN", adminToken],
    ["ORG_ID", demo.organizationId],
    ["WS_ID", demo.workspaceId],
    ["PROJECT_ID", demo.projectId],
    ["FOLDER_ID", demo.folderId],
    ["DOC_ID", demo.documentId],
    ["TABLE_ID", demo.tableId],
    ["WEBHOOK_INBOX", inbox ?? ""],
  ];
}

export const exportLines = (vars) => vars.map(([k, v]) => `export ${k}=${shellQuote(v ?? "")}`);

export function writeEnvFile(file, vars, { comment } = {}) {
  mkdirSync(path.dirname(file), { recursive: true });
  const head = `# Written by npm start${comment ? ` (${comment})` : ""}; \`source\` it in the shell where you run the README tour.\n`;
  writeFileSync(file, head + exportLines(vars).join("\n") + "\n", { mode: 0o600 });
}
