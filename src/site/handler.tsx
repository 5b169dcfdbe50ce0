/** @jsxImportSource hono/jsx */
/**
 * The reader site (docs/api-guide.md › Automations, published portals, collaborative editing): public HTML pages of
 * published portals at /site/{slug}[/{documentId}], and the same pages at /[{documentId}] for requests whose Host is
 * an entry's domain. No bearer token; no client JavaScript. The pages themselves are rendered by ./render.tsx.
 *
 * Caching: every page request first reads the portal's state in one D1 query (services/portals/state.ts), whose
 * digest is the portal version. A public page's strong ETag and its Cache API key are derived from that version,
 * so an edit changes both and the next request renders afresh with no purge; If-None-Match answers 304; a page
 * still current is served from `caches.default` (`x-portal-cache: hit`). Protected pages are never stored.
 */
import type { Child } from "hono/jsx";
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { HonoEnv } from "../env";
import type { Router } from "../openapi";
import { isActive, isIndexable, loadPortals, type PortalState } from "../services/portals/state";
import { loginPortal, readerMayOpen } from "../services/portals/reader";
import { sha256Hex } from "../lib/crypto";
import { ifNoneMatchHits, requestHost, strongEtag } from "../http/portalHeaders";
import { LOGIN_PERIOD_SECONDS, spendPortalLogin } from "../http/portalLogin";
import { SITE_CSS } from "./css";
import { CSS_PATH, CSS_VERSION } from "./assets";
import { document, PasswordGate, Problem, type PageMeta } from "./pages";
import { linksOf, readerContext, renderPage, searchPath, siteName, type Mount } from "./render";
import {
  CONTENT_TYPES,
  LLMS_PATH,
  machinePath,
  MD_SUFFIX,
  readablePages,
  renderLlmsTxt,
  renderPageMarkdown,
} from "./machine";
import type { SiteFormat } from "./machine";

export const PUBLIC_CACHE_CONTROL = "public, max-age=60, stale-while-revalidate=600";
const PRIVATE_CACHE_CONTROL = "private, no-store";
/** How long a rendered page may sit in the Cache API: its key carries the portal version, so it never goes stale. */
const STORED_CACHE_CONTROL = "public, max-age=86400";
const COOKIE_NAME = "portal_token";
const MAX_LOGIN_BODY = 8 * 1024;

export const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy":
    "default-src 'none'; style-src 'self'; img-src https: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
};

const DOC_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Rendered public pages kept in this isolate by page version, in front of the Cache API: a hit then costs the one
 * state query and no cache sub-request. Keys carry the portal version, so an entry can never be served stale;
 * bounded by count and bytes, oldest dropped first.
 */
const MEMO_MAX_ENTRIES = 200;
const MEMO_MAX_BYTES = 8 * 1024 * 1024;
/** Whole pages (DOCTYPE included) as UTF-8 bytes: a hit neither joins nor encodes a string again. */
const memo = new Map<string, Uint8Array>();
let memoBytes = 0;
const utf8 = new TextEncoder();

function remember(key: string, page: string | Uint8Array): Uint8Array {
  const bytes = typeof page === "string" ? utf8.encode(page) : page;
  if (bytes.byteLength > MEMO_MAX_BYTES / 4 || memo.has(key)) return bytes;
  memo.set(key, bytes);
  memoBytes += bytes.byteLength;
  for (const [k, v] of memo) {
    if (memo.size <= MEMO_MAX_ENTRIES && memoBytes <= MEMO_MAX_BYTES) break;
    memo.delete(k);
    memoBytes -= v.byteLength;
  }
  return bytes;
}
const SLUG = /^[a-z0-9-]{1,63}$/;

function cookiePath(m: Mount) {
  return m.ownDomain ? "/" : `/site/${m.slug}`;
}

/** `next` after login: a page of this portal, else its home (never another site or portal). */
function safeNext(m: Mount, next: unknown): string {
  const links = linksOf(m);
  if (typeof next !== "string") return links.home;
  const page = "(?:[A-Za-z0-9_-]{1,64}(?:\\.md)?|llms\\.txt)";
  const re = m.ownDomain ? new RegExp(`^/${page}?$`) : new RegExp(`^/site/${m.slug}(?:/${page})?$`);
  return re.test(next) ? next : links.home;
}

function html(
  status: number,
  body: Child | string | Uint8Array,
  headers: Record<string, string>,
  format: SiteFormat = "html",
): Response {
  return new Response(body instanceof Uint8Array ? body : `<!DOCTYPE html>${String(body)}`, {
    status,
    headers: { "Content-Type": CONTENT_TYPES[format], ...SECURITY_HEADERS, ...headers },
  });
}

/** The body of a page in the format asked for (HTML with its DOCTYPE, or the text of ./machine.ts). */
async function renderFormat(
  c: Context<HonoEnv>,
  portal: PortalState,
  mount: Mount,
  docId: string | null,
  format: SiteFormat,
  search?: string,
): Promise<string> {
  if (format === "llms") return renderLlmsTxt(c, portal, mount);
  if (format === "md")
    return renderPageMarkdown(
      c,
      portal,
      mount,
      portal.documents.find((d) => d._id === docId)!,
    );
  return `<!DOCTYPE html>${await renderPage(c, portal, mount, docId, search)}`;
}

function problemPage(
  status: 403 | 404 | 413 | 429,
  title: string,
  message: string,
  extra: Record<string, string> = {},
): Response {
  const meta: PageMeta = { title, description: message, url: "", siteName: title, noindex: true };
  return html(status, document(meta, <Problem title={title} message={message} />), {
    "Cache-Control": "no-store",
    "X-Robots-Tag": "noindex",
    ...extra,
  });
}

const notFoundPage = () => problemPage(404, "Page not found", "There is no published page at this address.");
const disabledPage = () => problemPage(403, "Portal unavailable", "This portal is not available at the moment.");

function indexHeaders(portal: PortalState): Record<string, string> {
  return isIndexable(portal) ? {} : { "X-Robots-Tag": "noindex" };
}

function gate(portal: PortalState, mount: Mount, next: string, failed: boolean, status: 401 | 200 = 401): Response {
  const meta: PageMeta = {
    title: `${siteName(portal)}: password required`,
    description: "This portal is password-protected.",
    url: "",
    siteName: siteName(portal),
    noindex: true,
  };
  return html(
    status,
    document(meta, <PasswordGate portal={portal} action={`/site/${mount.slug}/login`} next={next} failed={failed} />),
    {
      "Cache-Control": PRIVATE_CACHE_CONTROL,
      "X-Robots-Tag": "noindex",
    },
  );
}

/** One page of a portal, with the access, conditional-request and edge-cache rules above (any of its formats). */
async function servePage(
  c: Context<HonoEnv>,
  portal: PortalState | undefined,
  mount: Mount,
  docId: string | null,
  search?: string,
  format: SiteFormat = "html",
): Promise<Response> {
  const now = Date.now();
  if (!portal) return notFoundPage();
  if (!isActive(portal, now)) return disabledPage();
  // A search page is keyed (ETag, cache) by its query as a document page is by its path.
  const path =
    format !== "html"
      ? machinePath(mount, docId)
      : search !== undefined
        ? searchPath(mount, search)
        : docId
          ? linksOf(mount).doc(docId)
          : linksOf(mount).home;
  const pages = format === "md" ? readablePages(portal) : portal.documents;
  const missing = docId !== null && !pages.some((d) => d._id === docId);

  if (portal.passwordHash !== null) {
    const ok = await readerMayOpen(readerContext(c, now), { portal, token: getCookie(c, COOKIE_NAME) ?? null });
    if (!ok) return gate(portal, mount, path, false);
    if (missing) return notFoundPage();
    const body = utf8.encode(await renderFormat(c, portal, mount, docId, format, search));
    return html(200, body, { "Cache-Control": PRIVATE_CACHE_CONTROL, ...indexHeaders(portal) }, format);
  }

  if (missing) return notFoundPage();
  const origin = new URL(c.req.url).origin;
  const pageVersion = (
    await sha256Hex(`${portal.version}|${origin}|${path}|${mount.ownDomain ? "domain" : "site"}|${CSS_VERSION}`)
  ).slice(0, 32);
  const etag = strongEtag(pageVersion);
  const headers = { ETag: etag, "Cache-Control": PUBLIC_CACHE_CONTROL, ...indexHeaders(portal) };
  if (ifNoneMatchHits(c.req.header("if-none-match"), etag)) {
    return new Response(null, { status: 304, headers: { ...SECURITY_HEADERS, ...headers, "x-portal-cache": "hit" } });
  }
  const memoKey = `${origin}|${pageVersion}`;
  const local = memo.get(memoKey);
  if (local !== undefined) return html(200, local, { ...headers, "x-portal-cache": "hit" }, format);
  const cache = (globalThis as unknown as { caches?: { default: Cache } }).caches?.default;
  const key = new Request(`${origin}/__portal-cache/${pageVersion}`);
  const cached = await cache?.match(key);
  if (cached) {
    const page = remember(memoKey, new Uint8Array(await cached.arrayBuffer()));
    return html(200, page, { ...headers, "x-portal-cache": "hit" }, format);
  }
  const page = remember(memoKey, await renderFormat(c, portal, mount, docId, format, search));
  const res = html(200, page, { ...headers, "x-portal-cache": "miss" }, format);
  if (cache) {
    const stored = html(200, page, { ...headers, "Cache-Control": STORED_CACHE_CONTROL }, format);
    await cache.put(key, stored).catch(() => undefined);
  }
  return res;
}

function sitemap(c: Context<HonoEnv>, portal: PortalState | undefined, mount: Mount): Response {
  if (!portal || !isActive(portal, Date.now()) || !isIndexable(portal)) {
    return new Response("Not found", {
      status: 404,
      headers: { "Content-Type": "text/plain; charset=UTF-8", "X-Robots-Tag": "noindex", ...SECURITY_HEADERS },
    });
  }
  const origin = new URL(c.req.url).origin;
  const links = linksOf(mount);
  const esc = (s: string) =>
    s
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/'/g, "&apos;");
  const urls = [
    links.home,
    machinePath(mount, null),
    ...portal.documents.map((d) => links.doc(d._id)),
    ...readablePages(portal).map((d) => machinePath(mount, d._id)),
  ].map((p) => `<url><loc>${esc(origin + p)}</loc></url>`);
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join("")}</urlset>\n`;
  return new Response(xml, {
    headers: {
      "Content-Type": "application/xml; charset=UTF-8",
      "Cache-Control": PUBLIC_CACHE_CONTROL,
      ...SECURITY_HEADERS,
    },
  });
}

async function bySlug(c: Context<HonoEnv>, rawSlug: string): Promise<PortalState | undefined> {
  const slug = rawSlug.toLowerCase();
  if (!SLUG.test(slug)) return undefined;
  return (await loadPortals(readerContext(c, Date.now()), { slug }))[0];
}

async function login(c: Context<HonoEnv>, rawSlug: string): Promise<Response> {
  const slug = rawSlug.toLowerCase();
  const portal = await bySlug(c, slug);
  if (!portal) return notFoundPage();
  if (!isActive(portal, Date.now())) return disabledPage();
  const mount: Mount = {
    slug: portal.slug,
    ownDomain: portal.domain !== "" && requestHost(new URL(c.req.url).host) === portal.domain,
  };
  if (Number(c.req.header("content-length") ?? 0) > MAX_LOGIN_BODY)
    return problemPage(413, "Request too large", "The form sent too much data.");
  if (!(await spendPortalLogin(c.env, c.req.raw, portal.slug))) {
    return problemPage(429, "Too many attempts", "Too many password attempts. Wait a minute and try again.", {
      "Retry-After": String(LOGIN_PERIOD_SECONDS),
    });
  }
  let form: Record<string, unknown> = {};
  try {
    form = (await c.req.parseBody()) as Record<string, unknown>;
  } catch {
    form = {};
  }
  const next = safeNext(mount, form.next);
  const password = typeof form.password === "string" ? form.password.slice(0, 200) : "";
  const issued = await loginPortal(readerContext(c, Date.now()), { portal, password });
  if (!issued) return gate(portal, mount, next, true);
  setCookie(c, COOKIE_NAME, issued.token, {
    path: cookiePath(mount),
    httpOnly: true,
    secure: true,
    sameSite: "Lax",
    maxAge: Math.floor((issued.expiresAt - Date.now()) / 1000),
  });
  // The redirect is a site response like any page: it carries the safety headers too (docs/api-guide.md › Automations, published portals, collaborative editing).
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.header(name, value);
  return c.redirect(next, 303);
}

export function registerSite(app: Router) {
  app.get(CSS_PATH, (c) => {
    const etag = strongEtag(`css-${CSS_VERSION}`);
    const headers = {
      ...SECURITY_HEADERS,
      ETag: etag,
      "Cache-Control": "public, max-age=31536000, immutable",
      "Content-Type": "text/css; charset=UTF-8",
    };
    if (ifNoneMatchHits(c.req.header("if-none-match"), etag)) return new Response(null, { status: 304, headers });
    return new Response(SITE_CSS, { headers });
  });
  app.get("/site/:slug/sitemap.xml", async (c) =>
    sitemap(c, await bySlug(c, c.req.param("slug")), { slug: c.req.param("slug").toLowerCase(), ownDomain: false }),
  );
  app.post("/site/:slug/login", (c) => login(c, c.req.param("slug")));
  app.get("/site/:slug/search", async (c) => {
    const portal = await bySlug(c, c.req.param("slug"));
    const ownDomain = !!portal && portal.domain !== "" && requestHost(new URL(c.req.url).host) === portal.domain;
    const q = (c.req.query("q") ?? "").slice(0, 1000);
    return servePage(c, portal, { slug: c.req.param("slug").toLowerCase(), ownDomain }, null, q);
  });
  app.get("/site/:slug", async (c) =>
    servePage(
      c,
      await bySlug(c, c.req.param("slug")),
      { slug: c.req.param("slug").toLowerCase(), ownDomain: false },
      null,
    ),
  );
  app.get(`/site/:slug/${LLMS_PATH}`, async (c) => {
    const mount = { slug: c.req.param("slug").toLowerCase(), ownDomain: false };
    return servePage(c, await bySlug(c, c.req.param("slug")), mount, null, undefined, "llms");
  });
  app.get("/site/:slug/:documentId", async (c) => {
    const { docId, format } = pageOf(c.req.param("documentId"));
    const portal = await bySlug(c, c.req.param("slug"));
    if (!DOC_ID.test(docId)) return notFoundPage();
    return servePage(
      c,
      portal,
      { slug: c.req.param("slug").toLowerCase(), ownDomain: false },
      docId,
      undefined,
      format,
    );
  });
}

const HOST_PATH = /^\/(?:[A-Za-z0-9_-]{1,64}(?:\.md)?|sitemap\.xml|llms\.txt)?$/;

/** A page segment: `{documentId}` is its HTML page, `{documentId}.md` its Markdown copy. */
function pageOf(segment: string): { docId: string; format: SiteFormat } {
  return segment.endsWith(MD_SUFFIX)
    ? { docId: segment.slice(0, -MD_SUFFIX.length), format: "md" }
    : { docId: segment, format: "html" };
}

/**
 * Serves a portal at the root of its own domain. Only GET/HEAD of `/`, `/{documentId}` and `/sitemap.xml` that are
 * not API routes are looked at, and only a Host equal to an entry's domain is answered; anything else falls through
 * to the API (whose unknown paths still answer the JSON 404).
 */
export function portalHostMiddleware(isApiPath: (path: string) => boolean) {
  return async (c: Context<HonoEnv>, next: () => Promise<void>) => {
    const path = c.req.path;
    if (
      (c.req.method !== "GET" && c.req.method !== "HEAD") ||
      !HOST_PATH.test(path) ||
      (path !== "/" && isApiPath(path))
    )
      return next();
    const host = requestHost(new URL(c.req.url).host);
    if (!host) return next();
    const [portal] = await loadPortals(readerContext(c, Date.now()), { domain: host });
    if (!portal) return next();
    const mount: Mount = { slug: portal.slug, ownDomain: true };
    if (path === "/sitemap.xml") return sitemap(c, portal, mount);
    if (path === `/${LLMS_PATH}`) return servePage(c, portal, mount, null, undefined, "llms");
    if (path === "/") return servePage(c, portal, mount, null);
    const { docId, format } = pageOf(path.slice(1));
    return servePage(c, portal, mount, docId, undefined, format);
  };
}
