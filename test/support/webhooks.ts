/** Helpers for the webhook subscription tests (docs/api-guide.md › Webhook subscriptions). */
import { env } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { pumpSubscriptions } from "../../src/services/automations/subscriptions/pump";
import { ok, type Tenant } from "./harness";
import { eventually, hookUrl, receiverLog } from "./automations";

export const hookKey = (name: string) => `sub-${name}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

/** `POST /webhook` as the tenant's owner (201), receiving at the loopback receiver under `key`. */
export async function subscribe(
  t: Tenant,
  key: string,
  body: Record<string, unknown> = {},
  query: Record<string, string> = {},
): Promise<any> {
  const res = await ok(
    "POST",
    "/webhook",
    {
      token: t.owner.token,
      body: { scope: { projectId: t.projectId }, events: ["*"], url: hookUrl(key, query), ...body },
    },
    201,
  );
  return res.data;
}

/** One tick of the scheduled upkeep's subscription pump. */
export const pump = () => pumpSubscriptions(env, Date.now());

/** The receiver's requests under `key` once there are at least `count`, each body parsed and its signature checked. */
export async function received(key: string, secret: string, count = 1): Promise<any[]> {
  const log = await eventually(
    async () => {
      const l = await receiverLog(key);
      return l.length >= count ? l : null;
    },
    20_000,
    `${count} request(s) at ${key}`,
  );
  return log.map((req) => {
    const wh = new Webhook(secret);
    return {
      headers: req.headers,
      body: wh.verify(req.body, {
        "webhook-id": req.headers["webhook-id"]!,
        "webhook-timestamp": req.headers["webhook-timestamp"]!,
        "webhook-signature": req.headers["webhook-signature"]!,
      }),
    };
  });
}

/** The subscription's deliveries once `check` accepts them (newest first). */
export async function deliveriesWhen(t: Tenant, id: string, check: (list: any[]) => boolean): Promise<any[]> {
  return eventually(async () => {
    const list = (await ok("GET", `/webhook/${id}/deliveries`, { token: t.owner.token, query: { limit: "100" } })).data;
    return check(list) ? list : null;
  });
}

/** The entries the receiver got under `key`, across its requests in order, once there are `count` (ticking meanwhile). */
export async function receivedEntries(key: string, secret: string, count: number): Promise<any[]> {
  return eventually(
    async () => {
      await pump();
      const entries = (await received(key, secret, 0)).flatMap((r) => r.body.entries);
      return entries.length >= count ? entries : null;
    },
    20_000,
    `${count} entries at ${key}`,
  );
}

/** The organization's audit entries of `kind` about `recordId`, newest first, as its owner reads them. */
export async function auditOf(t: Tenant, kind: string, recordId: string): Promise<any[]> {
  const page = await ok("GET", `/organization/${t.organizationId}/audit`, {
    token: t.owner.token,
    query: { kind, limit: "1000" },
  });
  return page.data.filter((e: any) => e.recordId === recordId);
}

/** The id of the token a test user calls with (their only one). */
export async function tokenIdOf(token: string): Promise<string> {
  return (await ok("GET", "/token/all", { token })).data[0]._id;
}
