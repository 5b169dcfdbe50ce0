// Seeds the demo tenant through the public API (so it exercises the real logic) and remembers its token
// in .wrangler/demo.json; re-running finds the demo user already registered and creates nothing twice.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./lib/proc.mjs";

export const DEMO_EMAIL = "demo@example.com";
const STATE_FILE = path.join(ROOT, ".wrangler", "demo.json");

async function call(base, method, p, token, body) {
  const res = await fetch(base + p, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await res.json().catch(() => null);
  return { status: res.status, data };
}

async function must(base, method, p, token, body) {
  const res = await call(base, method, p, token, body);
  if (res.status !== 200) throw new Error(`${method} ${p} → ${res.status} ${JSON.stringify(res.data)}`);
  return res.data.data;
}

/** Returns { token, projectId, documentId, workspaceId, created } or { token: null } when the token was lost. */
export async function seedDemo(base, adminToken) {
  const saved = existsSync(STATE_FILE) ? JSON.parse(readFileSync(STATE_FILE, "utf8")) : null;
  const reg = await call(base, "POST", "/admin/users", adminToken, { email: DEMO_EMAIL, name: "Demo User" });
  if (reg.status === 409) {
    if (saved && (await call(base, "GET", "/me", saved.token)).status === 200) return { ...saved, created: false };
    return { token: null, created: false };
  }
  if (reg.status !== 200) throw new Error(`registering the demo user failed: ${reg.status} ${JSON.stringify(reg.data)}`);
  const { token, workspace } = reg.data.data;
  const t = token.token;
  const project = await must(base, "POST", "/project", t, {
    workspaceId: workspace._id,
    name: "Demo project",
    description: "Seeded by npm start",
    emoji: { unified: "1f680", emojiStyle: "apple" },
  });
  const folder = await must(base, "POST", "/document", t, { projectId: project._id, name: "Getting started", type: "FOLDER" });
  const welcome = await must(base, "POST", "/document", t, { projectId: project._id, parentId: folder._id, name: "Welcome", type: "DOCUMENT" });
  await must(base, "POST", "/document", t, { projectId: project._id, parentId: folder._id, name: "Roadmap", type: "DOCUMENT" });
  // Content and a table, where this build has those routes (ignored otherwise).
  await call(base, "PUT", `/document/${welcome._id}/content`, t, {
    blocks: [
      { id: "b1", type: "heading", content: "Welcome to the workspace service" },
      { id: "b2", type: "paragraph", content: "This document was seeded by npm start." },
    ],
  });
  const state = { token: t, workspaceId: workspace._id, projectId: project._id, folderId: folder._id, documentId: welcome._id };
  mkdirSync(path.dirname(STATE_FILE), { recursive: true });
  writeFileSync(STATE_FILE, JSON.stringify(state, null, 2), { mode: 0o600 });
  return { ...state, created: true };
}
