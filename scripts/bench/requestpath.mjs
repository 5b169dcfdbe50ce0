// Shared by the load and latency benches: a seeded API with several users, each with its own records and tokens,
// so the per-user rate limit (300 requests a minute) is never what is measured.
import { ADMIN_TOKEN, startApi } from "./lib.mjs";

/**
 * `users × tokensPerUser` identities, each a user of its own with its own records and token: the rate limit is per
 * user (all of a user's tokens together), so spreading a run over tokens of one user would not keep it under.
 */
export async function seedRequestPath(api, { users = 8, tokensPerUser = 10 } = {}) {
  const out = [];
  await Promise.all(
    Array.from({ length: users * tokensPerUser }, async (_, i) => {
      const reg = await api.call("POST", "/admin/users", {
        token: ADMIN_TOKEN,
        body: { email: `load-${i}-${Date.now()}@bench.test`, name: `Load ${i}` },
      });
      const token = reg.data.token.token;
      const workspaceId = reg.data.workspace._id;
      const project = await api.call("POST", "/project", { token, body: { workspaceId, name: "Load project" } });
      const doc = await api.call("POST", "/document", {
        token,
        body: { projectId: project.data._id, name: "Load doc", type: "DOCUMENT" },
      });
      const table = await api.call("POST", "/table", {
        token,
        body: { projectId: project.data._id, name: "Load table" },
      });
      const nameCol = table.data.columns[0]._id;
      const row = await api.call("POST", `/table/${table.data._id}/row`, {
        token,
        body: { cells: { [nameCol]: "a row" } },
      });
      out.push({
        token,
        workspaceId,
        projectId: project.data._id,
        docId: doc.data._id,
        rowId: (row.data.row ?? row.data)._id,
      });
    }),
  );
  return out;
}

export const ENDPOINTS = {
  "GET /health": () => "/health",
  "E10 GET /document/{id}": (u) => `/document/${u.docId}`,
  "E12 GET /project/all/{workspaceId}": (u) => `/project/all/${u.workspaceId}`,
  "E16 GET /table/row/{id}": (u) => `/table/row/${u.rowId}`,
};

export function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** Closed-loop load: `concurrency` callers for `ms`, each picking the next identity; returns latencies and trips. */
export async function drive(url, pathOf, identities, { concurrency = 16, ms = 3000 } = {}) {
  const latencies = [];
  const trips = [];
  let next = 0;
  let failures = 0;
  const deadline = performance.now() + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const u = identities[next++ % identities.length];
        const t0 = performance.now();
        const res = await fetch(url + pathOf(u), { headers: { authorization: `Bearer ${u.token}` } });
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (res.status !== 200) failures += 1;
        trips.push(Number(res.headers.get("x-d1-round-trips") ?? 0));
      }
    }),
  );
  return { latencies, trips, failures, seconds: ms / 1000 };
}

export { startApi };
