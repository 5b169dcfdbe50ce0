import type { CaseFactory } from "../types";
import { hookUrl } from "../../support/automations";
import { addRow, makeTable } from "../../support/tableHarness";
import { deliveriesWhen, hookKey, pump, subscribe } from "../../support/webhooks";

/** Every webhook subscription route (docs/api-guide.md › Webhook subscriptions): outsiders 404, viewers 403 on changes. */
export const webhookCases: CaseFactory = async (t) => {
  const table = await makeTable(t.owner.token, t.projectId, "Security webhooks");
  const sub = await subscribe(t, hookKey("security"), { scope: { tableId: table.tableId } });
  const doomed = await subscribe(t, hookKey("security-delete"));
  await addRow(t.owner.token, table.tableId);
  await pump();
  const [delivery] = await deliveriesWhen(t, sub._id, (l) => l[0]?.status === "delivered");
  const create = (scope: Record<string, string>) => ({ scope, events: ["row.*"], url: hookUrl(hookKey("security")) });
  return [
    {
      name: "POST /webhook (project)",
      method: "POST",
      path: "/webhook",
      body: create({ projectId: t.projectId }),
      viewerForbidden: true,
    },
    {
      name: "POST /webhook (table)",
      method: "POST",
      path: "/webhook",
      body: create({ tableId: table.tableId }),
      viewerForbidden: true,
    },
    {
      name: "GET /webhook/all",
      method: "GET",
      path: "/webhook/all",
      // Lists only what the caller may read: an outsider gets an empty page of theirs.
      outsider: { status: 200 },
    },
    { name: "GET /webhook/{id}", method: "GET", path: `/webhook/${sub._id}` },
    {
      name: "PATCH /webhook/{id}",
      method: "PATCH",
      path: `/webhook/${sub._id}`,
      body: { description: "x" },
      viewerForbidden: true,
    },
    {
      name: "POST /webhook/{id}/rotate-secret",
      method: "POST",
      path: `/webhook/${sub._id}/rotate-secret`,
      viewerForbidden: true,
    },
    { name: "GET /webhook/{id}/deliveries", method: "GET", path: `/webhook/${sub._id}/deliveries` },
    {
      name: "POST /webhook/delivery/{id}/redeliver",
      method: "POST",
      path: `/webhook/delivery/${delivery._id}/redeliver`,
      viewerForbidden: true,
    },
    {
      name: "POST /webhook/{id}/replay",
      method: "POST",
      path: `/webhook/${sub._id}/replay`,
      body: { cursor: sub.cursor },
      viewerForbidden: true,
    },
    { name: "DELETE /webhook/{id}", method: "DELETE", path: `/webhook/${doomed._id}`, viewerForbidden: true },
  ];
};
