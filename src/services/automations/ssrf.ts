/**
 * Where a webhook may go (docs/api-guide.md, "Webhook targets"): https only, no localhost, and no address in any
 * range of SPECIAL_RANGES — one table, built from the IANA IPv4 and IPv6 Special-Purpose Address Registries plus
 * multicast, the deprecated IPv4-compatible and site-local blocks and every IPv6 form that carries an IPv4
 * address (mapped, translated, NAT64, Teredo, 6to4), refused whole rather than judged by the address they carry.
 * The same table judges a literal at save time and every resolved address at send time.
 *
 * The WHATWG URL parser already turns decimal, hex, octal and short IPv4 forms (`https://2130706433`, `0x7f.1`)
 * into dotted quads and writes IPv6 in its canonical form, so the checks below see canonical forms. Origins
 * listed in WEBHOOK_ALLOWED_ORIGINS are exempt (local receivers, intranet targets a deployment trusts).
 *
 * At send time the literal is checked again and a host name is resolved over DNS-over-HTTPS (cloudflare-dns.com),
 * in every environment: the delivery is refused when any A/AAAA answer falls in the table. Limits: the name is
 * resolved again by the runtime when it connects, so a name that changes its answer between the two (DNS
 * rebinding) is not caught here; docs/api-guide.md says what covers that.
 */
import { unprocessable } from "../../errors";

export function allowedOrigins(env: { WEBHOOK_ALLOWED_ORIGINS?: string }): Set<string> {
  const out = new Set<string>();
  for (const part of (env.WEBHOOK_ALLOWED_ORIGINS ?? "").split(",")) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    try {
      out.add(new URL(trimmed).origin);
    } catch {
      // a malformed entry exempts nothing
    }
  }
  return out;
}

/** Every range a webhook may not reach: [CIDR, what it is]. */
export const SPECIAL_RANGES: readonly (readonly [string, string])[] = [
  // IPv4 Special-Purpose Address Registry (RFC 6890 and updates)
  ["0.0.0.0/8", "this network"],
  ["10.0.0.0/8", "private use"],
  ["100.64.0.0/10", "shared address space (carrier-grade NAT)"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link local"],
  ["172.16.0.0/12", "private use"],
  ["192.0.0.0/24", "IETF protocol assignments"],
  ["192.0.2.0/24", "documentation (TEST-NET-1)"],
  ["192.31.196.0/24", "AS112-v4"],
  ["192.52.193.0/24", "AMT"],
  ["192.88.99.0/24", "6to4 relay anycast (deprecated)"],
  ["192.168.0.0/16", "private use"],
  ["192.175.48.0/24", "direct delegation AS112 service"],
  ["198.18.0.0/15", "benchmarking"],
  ["198.51.100.0/24", "documentation (TEST-NET-2)"],
  ["203.0.113.0/24", "documentation (TEST-NET-3)"],
  ["224.0.0.0/4", "multicast"],
  ["240.0.0.0/4", "reserved"],
  ["255.255.255.255/32", "limited broadcast"],
  // IPv6 Special-Purpose Address Registry (RFC 6890 and updates)
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["::/96", "IPv4-compatible (deprecated)"],
  ["::ffff:0:0/96", "IPv4-mapped"],
  ["::ffff:0:0:0/96", "IPv4-translated"],
  ["64:ff9b::/96", "IPv4/IPv6 translation (NAT64)"],
  ["64:ff9b:1::/48", "IPv4/IPv6 translation (local-use NAT64)"],
  ["100::/64", "discard-only"],
  ["100:0:0:1::/64", "dummy IPv6 prefix"],
  ["2001::/23", "IETF protocol assignments"],
  ["2001::/32", "Teredo"],
  ["2001:2::/48", "benchmarking"],
  ["2001:db8::/32", "documentation"],
  ["2002::/16", "6to4"],
  ["2620:4f:8000::/48", "direct delegation AS112 service"],
  ["3fff::/20", "documentation"],
  ["5f00::/16", "segment routing (SRv6) SIDs"],
  ["fc00::/7", "unique local"],
  ["fe80::/10", "link-local unicast"],
  ["fec0::/10", "site-local (deprecated)"],
  ["ff00::/8", "multicast"],
];

function ipv4Parts(host: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

/** Eight 16-bit groups of an IPv6 literal (without brackets), or null when it is not one. */
function ipv6Groups(host: string): number[] | null {
  let text = host.toLowerCase();
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (lastColon < 0) return null;
  const v4 = ipv4Parts(text.slice(lastColon + 1));
  if (v4) {
    tail = [(v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!];
    text = text.slice(0, lastColon + 1) + "0:0";
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (s: string) =>
    s === "" ? [] : s.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN));
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  if ([...head, ...rest].some(Number.isNaN)) return null;
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill(0), ...rest];
  if (tail.length) groups.splice(6, 2, ...tail);
  return groups;
}

type Parsed = { v: 4 | 6; n: bigint };

function parseAddress(address: string): Parsed | null {
  const v4 = ipv4Parts(address);
  if (v4) return { v: 4, n: v4.reduce((acc, p) => (acc << 8n) | BigInt(p), 0n) };
  const v6 = ipv6Groups(address);
  if (v6) return { v: 6, n: v6.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n) };
  return null;
}

interface Range {
  v: 4 | 6;
  base: bigint;
  mask: bigint;
  cidr: string;
  name: string;
}

const RANGES: Range[] = SPECIAL_RANGES.map(([cidr, name]) => {
  const [addr, len] = cidr.split("/") as [string, string];
  const parsed = parseAddress(addr);
  if (!parsed) throw new Error(`bad range ${cidr}`);
  const bits = parsed.v === 4 ? 32n : 128n;
  const mask = ((1n << bits) - 1n) ^ ((1n << (bits - BigInt(len))) - 1n);
  return { v: parsed.v, base: parsed.n & mask, mask, cidr, name };
});

/** The special-purpose range an address literal (IPv4 dotted quad, or IPv6 without brackets) falls in, or null. */
export function specialRange(address: string): { cidr: string; name: string } | null {
  const a = parseAddress(address.replace(/^\[|\]$/g, ""));
  if (!a) return null;
  const hit = RANGES.find((r) => r.v === a.v && (a.n & r.mask) === r.base);
  return hit ? { cidr: hit.cidr, name: hit.name } : null;
}

/** True when the address literal is in a special-purpose range (not a public unicast address). */
export function isPrivateAddress(address: string): boolean {
  return specialRange(address) !== null;
}

export type UrlVerdict = { ok: true; url: URL; exempt: boolean; literal: boolean } | { ok: false; reason: string };

/** The save-time rule (and the first half of the send-time rule): syntax, scheme and literal addresses. */
export function checkWebhookUrl(raw: string, env: { WEBHOOK_ALLOWED_ORIGINS?: string }): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "is not an absolute URL" };
  }
  if (allowedOrigins(env).has(url.origin)) return { ok: true, url, exempt: true, literal: false };
  if (url.protocol !== "https:") return { ok: false, reason: "must use https" };
  if (url.username || url.password) return { ok: false, reason: "must not carry credentials" };
  let host = url.hostname.toLowerCase();
  if (host.endsWith(".")) host = host.slice(0, -1);
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (host === "localhost" || host.endsWith(".localhost") || host === "")
    return { ok: false, reason: "must not point at localhost" };
  const literal = ipv4Parts(host) !== null || ipv6Groups(host) !== null;
  const range = literal ? specialRange(host) : null;
  if (range)
    return {
      ok: false,
      reason: `must not point at a private, loopback, link-local or reserved address (${range.cidr}, ${range.name})`,
    };
  // Any remaining all-numeric or hex-looking host the parser did not normalise is refused rather than guessed at.
  if (!literal && /^[0-9.]+$/.test(host)) return { ok: false, reason: "is not a valid host" };
  return { ok: true, url, exempt: false, literal };
}

export function requireWebhookUrl(raw: string, env: { WEBHOOK_ALLOWED_ORIGINS?: string }, path: string): void {
  const verdict = checkWebhookUrl(raw, env);
  if (!verdict.ok) throw unprocessable(`The webhook URL ${verdict.reason}`, [{ path, message: verdict.reason }]);
}

interface DohAnswer {
  Answer?: { type: number; data: string }[];
}

export type SendRefusal = { reason: string; retryable: boolean };

/**
 * The send-time rule, in every environment: the literal check again, then every A/AAAA answer of the host name
 * must be outside SPECIAL_RANGES. A lookup that fails is a reason to try later (like a network error), not to
 * send unchecked. Only origins in WEBHOOK_ALLOWED_ORIGINS skip the lookup (the local loopback receiver).
 */
export async function sendTimeCheck(
  raw: string,
  env: { WEBHOOK_ALLOWED_ORIGINS?: string },
  fetcher: typeof fetch = fetch,
): Promise<SendRefusal | null> {
  const verdict = checkWebhookUrl(raw, env);
  if (!verdict.ok) return { reason: `The webhook URL ${verdict.reason}`, retryable: false };
  if (verdict.exempt || verdict.literal) return null;
  const host = verdict.url.hostname.replace(/\.$/, "");
  const lookups = await Promise.all(
    (["A", "AAAA"] as const).map(async (type): Promise<SendRefusal | DohAnswer> => {
      try {
        const res = await fetcher(
          `https://cloudflare-dns.com/dns-query?name=${encodeURIComponent(host)}&type=${type}`,
          {
            headers: { accept: "application/dns-json" },
            signal: AbortSignal.timeout(5_000),
          },
        );
        if (!res.ok) return { reason: `DNS lookup of ${host} failed (${res.status})`, retryable: true };
        return (await res.json()) as DohAnswer;
      } catch (err) {
        return { reason: `DNS lookup of ${host} failed (${(err as Error).message})`, retryable: true };
      }
    }),
  );
  for (const l of lookups) {
    if ("reason" in l) return l;
    for (const a of l.Answer ?? []) {
      const range = a.type === 1 || a.type === 28 ? specialRange(a.data) : null;
      if (range)
        return {
          reason: `${host} resolves to a private or special-purpose address (${range.cidr}, ${range.name})`,
          retryable: false,
        };
    }
  }
  return null;
}

/** `sendTimeCheck`'s reason alone (null: the URL may be sent to). */
export async function refuseAtSendTime(
  raw: string,
  env: { WEBHOOK_ALLOWED_ORIGINS?: string },
  fetcher: typeof fetch = fetch,
): Promise<string | null> {
  return (await sendTimeCheck(raw, env, fetcher))?.reason ?? null;
}
