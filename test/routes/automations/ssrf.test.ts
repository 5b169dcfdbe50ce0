/**
 * Webhook targets (docs/api-guide.md): one table of special-purpose ranges judges literals at save time and resolved
 * addresses at send time, in every environment. A test per range: an address inside it is refused both ways.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import {
  SPECIAL_RANGES,
  checkWebhookUrl,
  refuseAtSendTime,
  specialRange,
} from "../../../src/services/automations/ssrf";
import { eventually } from "../../support/automations";

/** An address inside the range (its base plus one, or the base itself for a /32 or /128), as URL host text. */
function inside(cidr: string): string {
  const [addr, len] = cidr.split("/") as [string, string];
  if (addr.includes(".")) {
    const n = addr.split(".").reduce((a, p) => a * 256 + Number(p), 0) + (Number(len) === 32 ? 0 : 1);
    return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join(".");
  }
  const groups = expand(addr);
  if (Number(len) < 128) groups[7] = (groups[7]! + 1) & 0xffff;
  return `[${groups.map((g) => g.toString(16)).join(":")}]`;
}

function expand(v6: string): number[] {
  const [head, tail] = v6.split("::") as [string, string | undefined];
  const h = head ? head.split(":").map((g) => parseInt(g, 16)) : [];
  const t = tail ? tail.split(":").map((g) => parseInt(g, 16)) : [];
  return [...h, ...Array(8 - h.length - t.length).fill(0), ...t];
}

const doh = (answers: Record<string, string[]>) =>
  (async (input: RequestInfo | URL) => {
    const type = new URL(String(input)).searchParams.get("type")!;
    return Response.json({ Answer: (answers[type] ?? []).map((data) => ({ type: type === "A" ? 1 : 28, data })) });
  }) as typeof fetch;

describe("special-purpose ranges, one table", () => {
  it.each(SPECIAL_RANGES.map(([cidr, name]) => [cidr, name]))(
    "%s (%s) is refused at save and at send time",
    async (cidr) => {
      const host = inside(cidr);
      const url = `https://${host}/hook`;
      const saved = checkWebhookUrl(url, {});
      expect(saved.ok, `${url} saved`).toBe(false);
      expect(await refuseAtSendTime(url, {}, doh({}))).toMatch(/private|reserved/);
      // The same address as a DNS answer of an innocent-looking name.
      const bare = host.replace(/^\[|\]$/g, "");
      const answers: Record<string, string[]> = bare.includes(":") ? { AAAA: [bare] } : { A: [bare] };
      expect(await refuseAtSendTime("https://innocent.example/hook", {}, doh(answers))).toMatch(/special-purpose/);
    },
  );

  it("public addresses next to the ranges pass", () => {
    for (const a of [
      "8.8.8.8",
      "1.1.1.1",
      "100.128.0.1",
      "172.32.0.1",
      "192.88.100.1",
      "198.20.0.1",
      "223.255.255.254",
      "2606:4700:4700::1111",
      "2a00:1450::1",
      "2001:200::1",
      "64:ff9b:2::1",
    ]) {
      expect(specialRange(a), a).toBeNull();
    }
  });

  it("the forms that were accepted are 422 on save: IPv4-translated, local-use NAT64, Teredo, 6to4 relay", async () => {
    const t: Tenant = await seedTenant();
    for (const url of [
      "https://[::ffff:0:127.0.0.1]/",
      "https://[64:ff9b:1::7f00:1]/",
      "https://[2001::7f00:1]/",
      "https://192.88.99.1/",
      "https://[2002:c0a8:101::1]/",
      "https://[3fff::1]/",
    ]) {
      const res = await call("POST", "/automation", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "S", actions: [{ spec: { kind: "webhook", url } }] },
      });
      expectError(res, 422, "UnprocessableEntityError");
    }
  });

  it("the send-time lookup runs in this (development) environment too: a name is resolved before anything is sent", async () => {
    expect(String(env.ENVIRONMENT ?? "")).not.toBe("production");
    const t: Tenant = await seedTenant();
    const a = (
      await ok("POST", "/automation", {
        token: t.owner.token,
        body: {
          projectId: t.projectId,
          name: "Name",
          actions: [{ id: "hook", spec: { kind: "webhook", url: "https://localtest.me/hook" } }],
        },
      })
    ).data;
    await ok("POST", `/automation/${a._id}/run`, { token: t.owner.token });
    const d = await eventually(async () => {
      const [x] = (await ok("GET", `/automation/${a._id}/deliveries`, { token: t.owner.token })).data;
      return x?.attempts?.length ? x : null;
    });
    // localtest.me resolves to 127.0.0.1: refused; without an outside network the lookup fails and is retried.
    expect(d.attempts[0].error).toMatch(/resolves to a private|DNS lookup of localtest\.me failed/);
    expect(d.attempts[0].httpStatus).toBeUndefined();
  });
});
