import type { CaseFactory } from "../types";
import { ok } from "../../support/harness";
import { eventually, hookUrl } from "../../support/automations";

/** Every automation route (E2, docs/api-guide.md › Automations, published portals, collaborative editing): outsiders get 404, workspace viewers 403 on every change and on runs. */
export const automationCases: CaseFactory = async (t) => {
  const tok = t.owner.token;
  const a = (
    await ok("POST", "/automation", {
      token: tok,
      body: {
        projectId: t.projectId,
        name: "Sec",
        actions: [{ id: "hook", spec: { kind: "webhook", url: hookUrl(`security-${Date.now()}`) } }],
      },
    })
  ).data;
  const run = (await ok("POST", `/automation/${a._id}/run`, { token: tok })).data;
  const delivery = await eventually(
    async () => (await ok("GET", `/automation/${a._id}/deliveries`, { token: tok })).data[0],
    20_000,
    "a delivery",
  );
  return [
    {
      name: "POST /automation",
      method: "POST",
      path: "/automation",
      body: { projectId: t.projectId, name: "x" },
      viewerForbidden: true,
    },
    {
      name: "E2 PATCH /automation/{id}",
      method: "PATCH",
      path: `/automation/${a._id}`,
      body: { name: "x" },
      viewerForbidden: true,
    },
    { name: "GET /automation/{id}", method: "GET", path: `/automation/${a._id}` },
    { name: "GET /automation/all/{projectId}", method: "GET", path: `/automation/all/${t.projectId}` },
    { name: "DELETE /automation/{id}", method: "DELETE", path: `/automation/${a._id}`, viewerForbidden: true },
    { name: "POST /automation/{id}/run", method: "POST", path: `/automation/${a._id}/run`, viewerForbidden: true },
    { name: "GET /automation/{id}/runs", method: "GET", path: `/automation/${a._id}/runs` },
    { name: "GET /automation/run/{runId}", method: "GET", path: `/automation/run/${run._id}` },
    {
      name: "POST /automation/run/{runId}/retry",
      method: "POST",
      path: `/automation/run/${run._id}/retry`,
      viewerForbidden: true,
    },
    { name: "GET /automation/{id}/deliveries", method: "GET", path: `/automation/${a._id}/deliveries` },
    {
      name: "POST /automation/delivery/{id}/redeliver",
      method: "POST",
      path: `/automation/delivery/${delivery._id}/redeliver`,
      viewerForbidden: true,
    },
    {
      name: "POST /automation/{id}/webhook-secret/rotate",
      method: "POST",
      path: `/automation/${a._id}/webhook-secret/rotate`,
      viewerForbidden: true,
    },
  ];
};
