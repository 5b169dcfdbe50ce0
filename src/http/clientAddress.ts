/**
 * The client address every per-client limit is keyed by (docs/api-guide.md, "Limits"): failed authentication,
 * portal logins. One function, so no limit can read a forgeable header on its own.
 *
 * - Behind Cloudflare's edge (`TRUST_CF_CONNECTING_IP` = "true"), the edge overwrites `CF-Connecting-IP` with the
 *   address of the connection it accepted, so that header is the client's address.
 * - Otherwise (`npm start`, workerd on its own) that header is whatever the client sent — or, when it sent none, the
 *   socket's address that the local runtime fills in, which a client can override by sending the header itself.
 *   Neither can be trusted, so the address is the one bucket `direct`: every client of such a deployment shares each
 *   per-address limit, and no client can step outside it by inventing addresses.
 *
 * An IPv6 address counts by its /64 (one subscriber's usual allocation, which it can rotate through freely);
 * IPv4 by the whole address. A value that is not an IP address counts as `invalid`, one shared bucket.
 */

/** Whether this deployment sits behind Cloudflare's edge (the `TRUST_CF_CONNECTING_IP` setting). */
export function trustsEdgeAddress(env: { TRUST_CF_CONNECTING_IP?: string }): boolean {
  return /^(?:1|true|yes|on)$/i.test(env.TRUST_CF_CONNECTING_IP?.trim() ?? "");
}

/** The key of the request's client for per-client limits: `ip4:a.b.c.d`, `ip6:xxxx:xxxx:xxxx:xxxx::/64`, `direct` or `invalid`. */
export function clientAddress(headers: Headers, env: { TRUST_CF_CONNECTING_IP?: string }): string {
  if (!trustsEdgeAddress(env)) return "direct";
  const raw = headers.get("cf-connecting-ip")?.trim();
  if (!raw) return "direct";
  return normalizeAddress(raw) ?? "invalid";
}

/**
 * The client's address as the audit log records it (docs/api-guide.md › Changes, history and audit): the
 * CF-Connecting-IP the edge set, as given, when the deployment trusts it and it is an IP address; otherwise null
 * (an untrusted header is the client's own claim, not worth recording as its address).
 */
export function auditAddress(headers: Headers, env: { TRUST_CF_CONNECTING_IP?: string }): string | null {
  if (!trustsEdgeAddress(env)) return null;
  const raw = headers.get("cf-connecting-ip")?.trim() ?? "";
  return raw.length <= 64 && normalizeAddress(raw) ? raw : null;
}

/** `ip4:…` for an IPv4 address (IPv4-mapped IPv6 included), `ip6:<first four groups>::/64` for IPv6, null otherwise. */
export function normalizeAddress(raw: string): string | null {
  const text = raw
    .trim()
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "");
  const v4 = parseIpv4(text);
  if (v4) return `ip4:${v4.join(".")}`;
  const groups = parseIpv6(text);
  if (!groups) return null;
  // ::ffff:a.b.c.d is an IPv4 client seen through a dual-stack socket: the same client as a.b.c.d.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `ip4:${[groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join(".")}`;
  }
  return `ip6:${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

function parseIpv4(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN));
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : null;
}

/** The eight 16-bit groups of an IPv6 address (with `::` and a trailing dotted IPv4 part), or null. */
function parseIpv6(text: string): number[] | null {
  if (!text.includes(":") || text.length > 45) return null;
  let tail: number[] = [];
  let body = text;
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    const v4 = parseIpv4(text.slice(lastColon + 1));
    if (!v4) return null;
    tail = [(v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!];
    body = text.slice(0, lastColon + 1) + "0";
  }
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const hex = (part: string) => (part === "" ? [] : part.split(":"));
  const head = hex(halves[0]!);
  const rest = halves.length === 2 ? hex(halves[1]!) : [];
  const words = [...head, ...rest];
  if (!words.every((w) => /^[0-9a-f]{1,4}$/i.test(w))) return null;
  const width = 8 - (tail.length ? 2 : 0);
  // With a dotted tail, the placeholder "0" stands where the IPv4 part was and is dropped.
  const headNums = head.map((w) => parseInt(w, 16));
  let restNums = rest.map((w) => parseInt(w, 16));
  let all: number[];
  if (tail.length) {
    if (halves.length === 2) restNums = restNums.slice(0, -1);
    else headNums.pop();
  }
  if (halves.length === 2) {
    const missing = width - headNums.length - restNums.length;
    if (missing < 1) return null;
    all = [...headNums, ...new Array<number>(missing).fill(0), ...restNums];
  } else {
    if (headNums.length !== width) return null;
    all = headNums;
  }
  return [...all, ...tail];
}
