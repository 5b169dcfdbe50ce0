/**
 * Portal domains that belong to their owner (docs/api-guide.md, "Published portals"):
 *
 * - never one of the service's own host names: the SERVICE_HOSTNAMES setting (comma-separated, ports ignored), plus
 *   the host this request reached, which alone a client could forge with its Host header (422);
 * - served only once ownership is proven: each claim gets a random token, the domain's owner publishes it as the TXT
 *   record `_workspace-verify.<host>` = `workspace-verify=<token>`, and verify-domain reads that record through DNS over
 *   HTTPS (DOH_URL, Cloudflare's resolver by default). `DOMAIN_VERIFICATION=off` (local use only) verifies at once;
 * - unique among verified domains (a partial unique index in D1, 409): a pending claim holds nothing, so no tenant can
 *   squat a domain before its owner proves it.
 *
 * In production the domain must also reach this Worker: docs/deploy.md describes Cloudflare for SaaS custom hostnames.
 */
import type { Env } from "../../env";
import { ApiError, unprocessable } from "../../errors";
import { randomBase62 } from "../../lib/crypto";
import type { ServiceContext } from "../context";

export const TXT_PREFIX = "_workspace-verify.";
export const TXT_VALUE_PREFIX = "workspace-verify=";
const DEFAULT_DOH_URL = "https://cloudflare-dns.com/dns-query";

/** The host part of a stored domain (`docs.example.com:8080` → `docs.example.com`). */
export function hostOf(domain: string): string {
  const h = domain.trim().toLowerCase().replace(/\.$/, "");
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  return h.replace(/:\d*$/, "").replace(/\.$/, "");
}

/** The service's own host names: SERVICE_HOSTNAMES and the host of this request. */
function ownHostNames(env: Pick<Env, "SERVICE_HOSTNAMES">, requestUrl: string): Set<string> {
  const names = new Set((env.SERVICE_HOSTNAMES ?? "").split(",").map(hostOf).filter(Boolean));
  names.add(hostOf(new URL(requestUrl).host));
  return names;
}

/** 422 when `domain` names one of the service's own hosts (whatever the port). */
export function refuseOwnHost(domain: string | undefined, env: Pick<Env, "SERVICE_HOSTNAMES">, requestUrl: string) {
  if (domain && ownHostNames(env, requestUrl).has(hostOf(domain))) {
    throw unprocessable("domain must not be one of this service's own host names", [
      { path: "domain", message: "is one of this service's own host names" },
    ]);
  }
}

export function verificationOff(ctx: ServiceContext): boolean {
  return ctx.env.DOMAIN_VERIFICATION?.trim().toLowerCase() === "off";
}

export function newDomainToken(): string {
  return randomBase62(32);
}

export function txtName(domain: string): string {
  return `${TXT_PREFIX}${hostOf(domain)}`;
}

export function txtValue(token: string): string {
  return `${TXT_VALUE_PREFIX}${token}`;
}

/** What an entry shows about its domain's ownership (undefined without a domain). */
export function domainVerificationDto(e: {
  domain: string;
  domainToken?: string | null;
  domainVerifiedAt?: number | null;
}) {
  if (!e.domain) return undefined;
  return {
    status: e.domainVerifiedAt ? ("verified" as const) : ("pending" as const),
    txtName: txtName(e.domain),
    txtValue: txtValue(e.domainToken ?? ""),
  };
}

/** The TXT strings of `name`, each one record (DoH JSON gives each as quoted strings, long ones split). */
async function lookupTxt(env: Pick<Env, "DOH_URL">, name: string): Promise<string[]> {
  const url = new URL(env.DOH_URL || DEFAULT_DOH_URL);
  url.searchParams.set("name", name);
  url.searchParams.set("type", "TXT");
  let body: { Status?: number; Answer?: { type?: number; data?: string }[] };
  try {
    const res = await fetch(url, { headers: { accept: "application/dns-json" }, signal: AbortSignal.timeout(5000) });
    if (!res.ok) throw new Error(`resolver answered ${res.status}`);
    body = (await res.json()) as typeof body;
  } catch (err) {
    console.warn("portal domains: DNS over HTTPS failed", err instanceof Error ? err.message : err);
    throw new ApiError("ServiceUnavailableError", "The DNS resolver could not be reached; try verifying again later");
  }
  return (body.Answer ?? [])
    .filter((a) => a.type === 16 && typeof a.data === "string")
    .map((a) => joinTxtStrings(a.data!));
}

/** `"abc" "def"` → `abcdef`; an unquoted value as is. */
function joinTxtStrings(data: string): string {
  const parts = [...data.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, "$1"));
  return parts.length ? parts.join("") : data.trim();
}

/** Whether the domain's TXT record holds the entry's token. */
export async function txtRecordProves(
  ctx: ServiceContext,
  { domain, token }: { domain: string; token: string },
): Promise<boolean> {
  const { env } = ctx;
  const want = txtValue(token);
  return (await lookupTxt(env, txtName(domain))).some((v) => v.trim() === want);
}
