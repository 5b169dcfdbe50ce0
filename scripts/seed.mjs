// Seeds the demo tenant through the public API (so it exercises the real logic) and remembers its token and
// ids in <state dir>/demo.json. Re-running finds them and creates nothing twice; a state file from an older
// version is completed (e.g. the demo table added); a lost state file (the demo user exists, its token is gone)
// registers a fresh demo user, so npm start always ends with a token and every id the README tour uses.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { StartError } from "./lib/errors.mjs";

export const DEMO_EMAIL = "demo@example.com";

async function call(base, method, p, token, body) {
  let res;
  try {
    res = await fetch(base + p, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch (err) {
    throw new StartError(
      `Seeding the demo tenant failed: ${method} ${p} got no answer (${err.cause?.code ?? err.message}); the service's log is above.`,
    );
  }
  const data = await res.json().catch(() => null);
  return { status: res.status, data };
}

function seedFailure(what, res) {
  const hint =
    res.status === 401 && what.includes("/admin/users")
      ? "The server did not accept ADMIN_TOKEN: is ADMIN_TOKEN in your environment different from .dev.vars? Unset it or fix .dev.vars."
      : "The service is up but answered unexpectedly; its log is above.";
  return new StartError(`Seeding the demo tenant failed: ${what} → ${res.status} ${JSON.stringify(res.data)}`, {
    hint,
  });
}

async function must(base, method, p, token, body) {
  const res = await call(base, method, p, token, body);
  if (res.status !== 200) throw seedFailure(`${method} ${p}`, res);
  return res.data.data ?? res.data;
}

function readState(file) {
  try {
    return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : null;
  } catch {
    return null;
  }
}

function writeState(file, state) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(state, null, 2), { mode: 0o600 });
}

/** The demo table: Name (identifier), Price (number), Total (formula = Price * 2) and two rows. */
async function seedTable(base, t, state) {
  const table = await must(base, "POST", "/table", t, { projectId: state.projectId, name: "Prices" });
  const [nameCol] = await must(base, "GET", `/table/columns/${table._id}`, t);
  const price = await must(base, "POST", `/table/${table._id}/column`, t, {
    name: "Price",
    data: { type: "number", number: { format: "currency", decimalPlaces: 2, aggregation: "sum" } },
  });
  const total = await must(base, "POST", `/table/${table._id}/column`, t, { name: "Total", data: { type: "formula" } });
  await must(base, "POST", `/table/${table._id}/rows`, t, {
    rows: [
      { cells: { [nameCol._id]: "Apples", [price._id]: 3 } },
      { cells: { [nameCol._id]: "Pears", [price._id]: 4.5 } },
    ],
  });
  const applied = await call(base, "POST", `/table/column/${total._id}/computed/apply`, t, {
    description: [{ kind: "text", text: "Price * 2" }],
    expression: {
      kind: "op",
      op: "*",
      args: [
        { kind: "column", columnId: price._id },
        { kind: "literal", value: 2 },
      ],
    },
  });
  if (applied.status !== 200) throw seedFailure(`POST /table/column/${total._id}/computed/apply`, applied);
  return table._id;
}

async function seedNew(base, adminToken, email) {
  const reg = await call(base, "POST", "/admin/users", adminToken, { email, name: "Demo User" });
  if (reg.status === 409) return null;
  if (reg.status !== 200) throw seedFailure("POST /admin/users", reg);
  const { token, workspace, organization } = reg.data.data;
  const t = token.token;
  const project = await must(base, "POST", "/project", t, {
    workspaceId: workspace._id,
    name: "Demo project",
    description: "Seeded by npm start",
    emoji: { unified: "1f680", emojiStyle: "apple" },
  });
  const folder = await must(base, "POST", "/document", t, {
    projectId: project._id,
    name: "Getting started",
    type: "FOLDER",
  });
  const welcome = await must(base, "POST", "/document", t, {
    projectId: project._id,
    parentId: folder._id,
    name: "Welcome",
    type: "DOCUMENT",
  });
  await must(base, "POST", "/document", t, {
    projectId: project._id,
    parentId: folder._id,
    name: "Roadmap",
    type: "DOCUMENT",
  });
  const text = (s) => [{ type: "text", text: s, styles: {} }];
  await must(base, "PUT", `/document/${welcome._id}/content`, t, {
    blocks: [
      {
        id: "b1",
        type: "heading",
        props: { level: 1 },
        content: text("Welcome to the workspace service"),
        children: [],
      },
      {
        id: "b2",
        type: "paragraph",
        props: {},
        content: text("This document was seeded by npm start. The README tour publishes it as a portal page."),
        children: [],
      },
      { id: "b3", type: "heading", props: { level: 2 }, content: text("What is in this project"), children: [] },
      {
        id: "b4",
        type: "bulletListItem",
        props: {},
        content: text("a folder with this page and a roadmap"),
        children: [],
      },
      {
        id: "b5",
        type: "bulletListItem",
        props: {},
        content: text("the table Prices, with a formula column Total"),
        children: [],
      },
      {
        id: "b6",
        type: "paragraph",
        props: {},
        content: [
          { type: "text", text: "Every call is described in ", styles: {} },
          { type: "text", text: "the API guide", styles: { bold: true } },
          { type: "text", text: " and in the interactive reference at /docs.", styles: {} },
        ],
        children: [],
      },
    ],
  });
  return {
    email,
    token: t,
    organizationId: organization._id,
    workspaceId: workspace._id,
    projectId: project._id,
    folderId: folder._id,
    documentId: welcome._id,
  };
}

/**
 * Returns { token, organizationId, workspaceId, projectId, folderId, documentId, tableId, created }.
 * `stateFile` keeps them between runs (it lives beside the local database, so a fresh database starts fresh).
 */
export async function seedDemo(base, adminToken, { stateFile }) {
  let state = readState(stateFile);
  let created = false;
  if (state && (await call(base, "GET", "/me", state.token)).status !== 200) state = null;
  if (!state) {
    state = await seedNew(base, adminToken, DEMO_EMAIL);
    // The demo user exists but its token is lost (state file deleted): seed another demo user.
    state ??= await seedNew(base, adminToken, `demo+${Date.now()}@example.com`);
    if (!state) throw new StartError("Seeding the demo tenant failed: could not register a demo user.");
    created = true;
  }
  if (!state.organizationId) {
    const orgs = await must(base, "GET", "/organization/all", state.token);
    state.organizationId = orgs[0]?._id;
  }
  if (!state.tableId) state.tableId = await seedTable(base, state.token, state);
  writeState(stateFile, state);
  return { ...state, created };
}
