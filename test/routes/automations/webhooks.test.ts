import { Webhook } from "standardwebhooks";
import { shardD1 } from "../../support/shards";
import { beforeAll, describe, expect, it } from "vitest";
import { ok, seedTenant, type Tenant } from "../../support/harness";
import { addRow, makeTable } from "../../support/tableHarness";
import { callQueue, eventually, finishedRuns, hookUrl, receiverLog, webhookAction } from "../../support/automations";
import { isPrivateAddress, refuseAtSendTime } from "../../../src/services/automations/ssrf";
import { decodeBase64, encodeBase64 } from "../../../src/lib/base64";
import { DELIVERY_CONCURRENCY } from "../../../src/services/automations/queue";

let t: Tenant;

beforeAll(async () => {
  t = await seedTenant();
});

const key = (name: string) => `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

async function webhookAutomation(url: string, extra: Record<string, unknown> = {}) {
  return (
    await ok("POST", "/automation", {
      token: t.owner.token,
      body: { projectId: t.projectId, name: "Hook", actions: [webhookAction(url)], ...extra },
    })
  ).data;
}

async function deliveries(automationId: string, query: Record<string, string> = {}): Promise<any[]> {
  return (await ok("GET", `/automation/${automationId}/deliveries`, { token: t.owner.token, query })).data;
}

describe("webhooks", () => {
  it("a row event delivers a signed payload a Standard Webhooks receiver verifies", async () => {
    const k = key("signed");
    const { tableId, nameColumnId } = await makeTable(t.owner.token, t.projectId, "Hooked");
    const a = await webhookAutomation(hookUrl(k), { triggers: [{ event: "row.created", filter: { tableId } }] });
    const row = await addRow(t.owner.token, tableId, { [nameColumnId]: "Ada" });
    const [req] = await eventually(async () => {
      const log = await receiverLog(k);
      return log.length ? log : null;
    });
    const wh = new Webhook(a.webhookSecret);
    const payload = wh.verify(req!.body, {
      "webhook-id": req!.headers["webhook-id"]!,
      "webhook-timestamp": req!.headers["webhook-timestamp"]!,
      "webhook-signature": req!.headers["webhook-signature"]!,
    }) as any;
    expect(payload).toMatchObject({
      type: "automation.run",
      data: {
        automationId: a._id,
        trigger: { event: "row.created", rowId: row.row._id },
        row: { _id: row.row._id, cells: { [nameColumnId]: "Ada" } },
      },
    });
    // The same signature from the Standard Webhooks definition with WebCrypto, independently of the library that signs.
    const secretBytes = decodeBase64(a.webhookSecret.replace(/^whsec_/, ""))!;
    const hmacKey = await crypto.subtle.importKey("raw", secretBytes, { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    const signed = `${req!.headers["webhook-id"]}.${req!.headers["webhook-timestamp"]}.${req!.body}`;
    const mac = await crypto.subtle.sign("HMAC", hmacKey, new TextEncoder().encode(signed));
    expect(req!.headers["webhook-signature"]).toBe(`v1,${encodeBase64(new Uint8Array(mac))}`);
    // A different secret does not verify.
    const rotated = (await ok("POST", `/automation/${a._id}/webhook-secret/rotate`, { token: t.owner.token })).data
      .webhookSecret;
    expect(() => new Webhook(rotated).verify(req!.body, req!.headers as Record<string, string>)).toThrow();
    const [delivery] = await eventually(async () => {
      const list = await deliveries(a._id);
      return list[0]?.status === "delivered" ? list : null;
    });
    expect(delivery).toMatchObject({
      _id: req!.headers["webhook-id"],
      status: "delivered",
      attempts: [{ httpStatus: 200 }],
      nextAttemptAt: null,
      actionId: "hook",
    });
    const [run] = await finishedRuns(t.owner.token, a._id);
    expect(run.deliveryIds).toEqual([delivery._id]);
    expect(run.externalWrites).toBe(1);
  });

  it("the webhook secret is sealed at rest, bound to its automation, and readable by its owner", async () => {
    const a = await webhookAutomation(hookUrl(key("sealed")));
    expect(a.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const stored = await shardD1(a._id)
      .prepare("SELECT webhook_secret AS s FROM automations WHERE id = ?1")
      .bind(a._id)
      .first<{ s: string }>();
    expect(stored!.s).toMatch(/^sealed:v1:/);
    expect(stored!.s).not.toContain(a.webhookSecret.slice(6, 30));
    expect((await ok("GET", `/automation/${a._id}`, { token: t.owner.token })).data.webhookSecret).toBe(
      a.webhookSecret,
    );
    const rotated = (await ok("POST", `/automation/${a._id}/webhook-secret/rotate`, { token: t.owner.token })).data
      .webhookSecret;
    const after = await shardD1(a._id)
      .prepare("SELECT webhook_secret AS s FROM automations WHERE id = ?1")
      .bind(a._id)
      .first<{ s: string }>();
    expect(after!.s).toMatch(/^sealed:v1:/);
    expect(after!.s).not.toBe(stored!.s);
    const [listed] = (await ok("GET", `/automation/all/${t.projectId}`, { token: t.owner.token })).data.filter(
      (x: any) => x._id === a._id,
    );
    expect(listed.webhookSecret).toBe(rotated);
    // A sealed value copied onto another automation opens for neither reader nor signer there.
    const other = await webhookAutomation(hookUrl(key("sealed-other")));
    await shardD1(other._id)
      .prepare("UPDATE automations SET webhook_secret = ?1 WHERE id = ?2")
      .bind(after!.s, other._id)
      .run();
    expect((await ok("GET", `/automation/${other._id}`, { token: t.owner.token })).data.webhookSecret).toBe("");
  });

  it("a queue batch's deliveries go out a few at a time: never more than DELIVERY_CONCURRENCY in flight, all delivered", async () => {
    const k = key("lanes");
    const n = 3 * DELIVERY_CONCURRENCY;
    // A receiver that holds each request, so deliveries sent together are seen together.
    const a = await webhookAutomation(hookUrl(k, { holdMs: "400" }), {
      behavior: { externalWriteBudget: n },
      actions: Array.from({ length: n }, (_, i) => ({
        id: `h${i}`,
        spec: { kind: "webhook", url: hookUrl(k, { holdMs: "400" }) },
      })),
    });
    await ok("POST", `/automation/${a._id}/run`, { token: t.owner.token });
    const log = await eventually(
      async () => {
        const l = await receiverLog(k);
        return l.length === n ? l : null;
      },
      60_000,
      `${n} deliveries`,
    );
    expect(Math.max(...log.map((x) => x.inFlight))).toBeLessThanOrEqual(DELIVERY_CONCURRENCY);
    expect(new Set(log.map((x) => x.headers["webhook-id"])).size).toBe(n);
  });

  it("503 is retried after 5 s with the same webhook-id; a later attempt succeeds", async () => {
    const k = key("retry");
    const a = await webhookAutomation(hookUrl(k, { statuses: "503,200" }));
    await ok("POST", `/automation/${a._id}/run`, { token: t.owner.token });
    const first = await eventually(async () => {
      const [d] = await deliveries(a._id);
      return d?.attempts.length === 1 ? d : null;
    });
    expect(first).toMatchObject({ status: "pending", attempts: [{ httpStatus: 503 }] });
    expect(first.nextAttemptAt - first.attempts[0].at).toBeGreaterThanOrEqual(5_000);
    expect(first.nextAttemptAt - first.attempts[0].at).toBeLessThan(6_500);
    const done = await eventually(
      async () => {
        const [d] = await deliveries(a._id);
        return d?.status === "delivered" ? d : null;
      },
      30_000,
      "the retried delivery",
    );
    expect(done.attempts.map((x: any) => x.httpStatus)).toEqual([503, 200]);
    const log = await receiverLog(k);
    expect(log).toHaveLength(2);
    expect(log[0]!.headers["webhook-id"]).toBe(log[1]!.headers["webhook-id"]);
    expect(log[1]!.at - log[0]!.at).toBeGreaterThanOrEqual(4_500);
  });

  it("the retry schedule and Retry-After decide each delaySeconds; 410 is final", async () => {
    const k = key("schedule");
    const a = await webhookAutomation(hookUrl(k, { statuses: "503" }));
    await ok("POST", `/automation/${a._id}/run`, { token: t.owner.token });
    const [d] = await eventually(async () => {
      const list = await deliveries(a._id);
      return list[0]?.attempts.length >= 1 ? list : null;
    });
    // The next attempts of this delivery through the consumer itself: each retryable failure is a Queue retry
    // (message.retry with delaySeconds, recorded as nextAttemptAt), 5 min, 30 min, 2 h… after the attempt; the 8th is final.
    const delays: number[] = [];
    const retried: number[] = [];
    for (let i = 0; i < 7; i++) {
      const result = await callQueue("automation-runs", [{ kind: "delivery", deliveryId: d._id }]);
      retried.push(result.retryMessages.length);
      const [now] = await deliveries(a._id);
      if (now.nextAttemptAt !== null)
        delays.push(Math.round((now.nextAttemptAt - now.attempts[now.attempts.length - 1].at) / 1000));
      else expect(result.explicitAcks).toHaveLength(1);
    }
    expect(delays).toEqual([300, 1800, 7200, 18000, 36000, 36000]);
    expect(retried).toEqual([1, 1, 1, 1, 1, 1, 0]);
    const [final] = await deliveries(a._id);
    expect(final).toMatchObject({ status: "failed", nextAttemptAt: null });
    expect(final.attempts.length).toBeGreaterThanOrEqual(8);
    expect((await deliveries(a._id, { status: "failed" })).map((x) => x._id)).toEqual([d._id]);

    const k2 = key("gone");
    const gone = await webhookAutomation(hookUrl(k2, { statuses: "410" }));
    await ok("POST", `/automation/${gone._id}/run`, { token: t.owner.token });
    const failed = await eventually(async () => {
      const [x] = await deliveries(gone._id);
      return x?.status === "failed" ? x : null;
    });
    expect(failed.attempts).toEqual([expect.objectContaining({ httpStatus: 410 })]);
    expect(failed.nextAttemptAt).toBeNull();
    // Nothing more is sent for it, even if its message came again.
    const again = await callQueue("automation-runs", [{ kind: "delivery", deliveryId: failed._id }]);
    expect(again.retryMessages).toEqual([]);
    expect(await receiverLog(k2)).toHaveLength(1);

    const k3 = key("after");
    const slow = await webhookAutomation(hookUrl(k3, { statuses: "429", retryAfter: "120" }));
    await ok("POST", `/automation/${slow._id}/run`, { token: t.owner.token });
    const [pending] = await eventually(async () => {
      const list = await deliveries(slow._id);
      return list[0]?.attempts.length >= 1 ? list : null;
    });
    expect(pending.nextAttemptAt - pending.attempts[0].at).toBeGreaterThanOrEqual(120_000);
  });

  it("send time: the literal is checked again and names resolving to private addresses are refused (every environment)", async () => {
    expect(isPrivateAddress("10.0.0.1")).toBe(true);
    expect(isPrivateAddress("fd12::1")).toBe(true);
    expect(isPrivateAddress("8.8.8.8")).toBe(false);
    const doh = (answers: Record<string, string[]>) =>
      (async (input: RequestInfo | URL) => {
        const u = new URL(String(input));
        const type = u.searchParams.get("type")!;
        return Response.json({ Answer: (answers[type] ?? []).map((data) => ({ type: type === "A" ? 1 : 28, data })) });
      }) as typeof fetch;
    // The same in every environment: no ENVIRONMENT switch turns the lookup off.
    const prod = { ENVIRONMENT: "development" } as { WEBHOOK_ALLOWED_ORIGINS?: string };
    expect(await refuseAtSendTime("https://internal.example/x", prod, doh({ A: ["10.1.2.3"] }))).toMatch(/private/);
    expect(await refuseAtSendTime("https://v6.example/x", prod, doh({ AAAA: ["::ffff:127.0.0.1"] }))).toMatch(
      /private/,
    );
    expect(await refuseAtSendTime("https://public.example/x", prod, doh({ A: ["93.184.216.34"] }))).toBeNull();
    expect(await refuseAtSendTime("https://127.0.0.1/x", prod, doh({}))).toMatch(/private/);
    expect(await refuseAtSendTime("http://public.example/x", prod, doh({}))).toMatch(/https/);
    // A stored delivery whose URL no longer passes is failed without a request.
    const a = await webhookAutomation("https://example.com/ok");
    await shardD1(a._id)
      .prepare(`UPDATE automations SET actions = ?1 WHERE id = ?2`)
      .bind(JSON.stringify([{ id: "hook", spec: { kind: "webhook", url: "https://169.254.169.254/latest" } }]), a._id)
      .run();
    await ok("POST", `/automation/${a._id}/run`, { token: t.owner.token });
    const refused = await eventually(async () => {
      const [x] = await deliveries(a._id);
      return x?.status === "failed" ? x : null;
    });
    expect(refused.attempts[0].error).toMatch(/private/);
    expect(refused.attempts[0].httpStatus).toBeUndefined();
  });
});
