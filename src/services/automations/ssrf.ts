/**
 * Where a webhook may go (API.md §14): https only; no localhost, 0.0.0.0, private, loopback, link-local,
 * unique-local, multicast or reserved addresses in any notation. The WHATWG URL parser already turns decimal,
 * hex, octal and short IPv4 forms (`http://2130706433`, `0x7f.1`) into dotted quads and compresses IPv6, so the
 * checks below see canonical forms; IPv4-mapped, IPv4-compatible, NAT64 and 6to4 IPv6 addresses are judged by
 * the IPv4 address they carry. Origins listed in WEBHOOK_ALLOWED_ORIGINS are exempt (local receivers).
 *
 * At send time the literal is checked again and, outside development/test, a host name is resolved over
 * DNS-over-HTTPS (cloudflare-dns.com) and refused when any A/AAAA answer is private: a name pointing at an
 * internal address cannot be used to reach it. (Locally there is no outside network, so names are not resolved.)
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

function ipv4Parts(host: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

export function isPrivateIpv4(parts: readonly number[]): boolean {
  const [a, b] = parts as [number, number, number, number];
  return (
    a === 0 || // "this network", 0.0.0.0
    a === 10 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    a === 127 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 0 && parts[2] === 0) ||
    (a === 192 && b === 0 && parts[2] === 2) || // documentation
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) ||
    (a === 198 && b === 51 && parts[2] === 100) ||
    (a === 203 && b === 0 && parts[2] === 113) ||
    a >= 224 // multicast, reserved, broadcast
  );
}

/** Eight 16-bit groups of an IPv6 literal (without brackets), or null when it is not one. */
function ipv6Groups(host: string): number[] | null {
  let text = host.toLowerCase();
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  const v4 = ipv4Parts(text.slice(lastColon + 1));
  if (v4) {
    tail = [(v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!];
    text = text.slice(0, lastColon + 1) + "0:0";
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (s: string) => (s === "" ? [] : s.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)));
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  if ([...head, ...rest].some(Number.isNaN)) return null;
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill(0), ...rest];
  if (tail.length) groups.splice(6, 2, ...tail);
  return groups;
}

export function isPrivateIpv6(g: readonly number[]): boolean {
  const embedded = () => [g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255];
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 8)) return true; // ::
  if (zero(0, 7) && g[7] === 1) return true; // ::1
  if (zero(0, 5) && g[5] === 0xffff) return isPrivateIpv4(embedded()); // ::ffff:a.b.c.d
  if (zero(0, 6)) return isPrivateIpv4(embedded()); // ::a.b.c.d (IPv4-compatible)
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return isPrivateIpv4(embedded()); // NAT64
  if (g[0] === 0x2002) return isPrivateIpv4([g[1]! >> 8, g[1]! & 255, g[2]! >> 8, g[2]! & 255]); // 6to4
  const first = g[0]!;
  return (
    (first & 0xfe00) === 0xfc00 || // unique-local fc00::/7
    (first & 0xffc0) === 0xfe80 || // link-local fe80::/10
    (first & 0xffc0) === 0xfec0 || // site-local (deprecated)
    (first & 0xff00) === 0xff00 || // multicast
    (first === 0x2001 && g[1] === 0x0db8) || // documentation
    (first === 0x0100 && zero(1, 4)) // discard-only
  );
}

/** True when the address literal (IPv4 dotted quad or IPv6 without brackets) is not a public address. */
export function isPrivateAddress(address: string): boolean {
  const v4 = ipv4Parts(address);
  if (v4) return isPrivateIpv4(v4);
  const v6 = ipv6Groups(address);
  return v6 ? isPrivateIpv6(v6) : false;
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
  if (host === "localhost" || host.endsWith(".localhost") || host === "") return { ok: false, reason: "must not point at localhost" };
  const literal = ipv4Parts(host) !== null || ipv6Groups(host) !== null;
  if (literal && isPrivateAddress(host)) return { ok: false, reason: "must not point at a private, loopback, link-local or reserved address" };
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

/**
 * The send-time rule: the literal check again, then (production only) every A/AAAA answer of the host name must
 * be public. Returns a reason to refuse, or null.
 */
export async function refuseAtSendTime(raw: string, env: { WEBHOOK_ALLOWED_ORIGINS?: string; ENVIRONMENT?: string }, fetcher: typeof fetch = fetch): Promise<string | null> {
  const verdict = checkWebhookUrl(raw, env);
  if (!verdict.ok) return `The webhook URL ${verdict.reason}`;
  if (verdict.exempt || verdict.literal) return null;
  const env_ = (env.ENVIRONMENT ?? "").toLowerCase();
  if (env_ === "development" || env_ === "test") return null;
  const host = verdict.url.hostname.replace(/\.$/, "");
  for (const type of ["A", "AAAA"]) {
    let answer: DohAnswer;
    try {
      const res = await fetcher(`https://cloudflare-dns.com/dns-query?name=${encodeURIComponent(host)}&type=${type}`, {
        headers: { accept: "application/dns-json" },
        signal: AbortSignal.timeout(5_000),
      });
      if (!res.ok) return `DNS lookup of ${host} failed (${res.status})`;
      answer = (await res.json()) as DohAnswer;
    } catch (err) {
      return `DNS lookup of ${host} failed (${(err as Error).message})`;
    }
    for (const a of answer.Answer ?? []) {
      if ((a.type === 1 || a.type === 28) && isPrivateAddress(a.data)) return `${host} resolves to a private address`;
    }
  }
  return null;
}
