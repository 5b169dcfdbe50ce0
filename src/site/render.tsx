/** @jsxImportSource hono/jsx */
/**
 * The reader site's pages rendered to HTML, without headers (docs/api-guide.md › Automations, published portals,
 * collaborative editing): a portal's home, a document page and the search page, with their links for where the portal
 * is mounted (under /site/{slug} or at the root of its own domain). ./handler.tsx decides access, caching and headers.
 */
import type { Context } from "hono";
import type { HonoEnv } from "../env";
import { isIndexable, type PortalDocument, type PortalState } from "../services/portals/state";
import { readContentJson } from "../services/content/store";
import { describe, document, DocumentArticle, HomeArticle, Shell, type Links, type PageMeta } from "./pages";
import { safeImageSrc } from "./safe";
import { SearchArticle } from "./search";
import { searchPortal } from "../services/search/site";
import { brandingDto } from "../services/portals/state";
import { serviceContext } from "../services/context";

/** A portal reader's service context: no account, the portal and its reader token decide. */
export function readerContext(c: Context<HonoEnv>, now: number) {
  return serviceContext(
    c.env,
    c.get("dir"),
    { type: "reader" },
    { now, waitUntil: (p) => c.executionCtx.waitUntil(p), database: c.get("database") },
  );
}

/** Where a portal lives: under /site/{slug}, or at the root of its own domain. */
export interface Mount {
  slug: string;
  ownDomain: boolean;
}

export function linksOf(m: Mount): Links {
  const base = m.ownDomain ? "" : `/site/${m.slug}`;
  // Search lives under /site/{slug} on every host: on a portal's own domain /search is the API's.
  return { home: base || "/", doc: (id) => `${base}/${id}`, search: `/site/${m.slug}/search` };
}

export async function readBlocks(c: Context<HonoEnv>, doc: PortalDocument): Promise<unknown> {
  if (doc.type !== "DOCUMENT" || !doc.contentKey) return [];
  let text: string | null = null;
  const obj = await c.env.BLOBS.get(doc.contentKey);
  if (obj) text = await obj.text();
  else text = (await readContentJson(readerContext(c, Date.now()).on(doc._id), doc._id)).blocksJson; // replaced since the state was read
  try {
    return JSON.parse(text);
  } catch {
    return [];
  }
}

export function siteName(p: PortalState) {
  return brandingDto(p.project.branding)?.company.name || p.project.name;
}

/** The page's HTML (without headers): `docId` null is the portal home; `search` (the query) renders the search page. */
export async function renderPage(
  c: Context<HonoEnv>,
  portal: PortalState,
  mount: Mount,
  docId: string | null,
  search?: string,
): Promise<string> {
  const links = linksOf(mount);
  if (search !== undefined) return renderSearch(c, portal, mount, search);
  const doc = docId
    ? portal.documents.find((d) => d._id === docId)!
    : (portal.documents.find((d) => d._id === portal.homepage) ?? null);
  const blocks = doc ? await readBlocks(c, doc) : [];
  const name = siteName(portal);
  const meta: PageMeta = {
    title: docId && doc ? `${doc.name} · ${name}` : name,
    description: describe(
      doc?.description || (docId ? "" : portal.project.description),
      blocks,
      docId && doc ? doc.name : portal.project.name,
    ),
    url: new URL(c.req.url).origin + (docId ? links.doc(docId) : links.home),
    siteName: name,
    noindex: !isIndexable(portal),
    image: safeImageSrc(brandingDto(portal.project.branding)?.company.logo),
    type: docId ? "article" : "website",
  };
  const body = doc ? (
    <DocumentArticle portal={portal} doc={doc} blocks={blocks} links={links} />
  ) : (
    <HomeArticle portal={portal} links={links} />
  );
  return String(
    document(
      meta,
      <Shell portal={portal} links={links} current={docId}>
        {body}
      </Shell>,
    ),
  );
}

async function renderSearch(c: Context<HonoEnv>, portal: PortalState, mount: Mount, q: string): Promise<string> {
  const links = linksOf(mount);
  const pages = portal.documents.filter((d) => d.type !== "EXTERNAL").map((d) => d._id);
  const result = q.trim()
    ? await searchPortal(readerContext(c, Date.now()).on(portal.projectId), { documentIds: pages, q })
    : null;
  const name = siteName(portal);
  const meta: PageMeta = {
    title: q.trim() ? `Search: ${q} · ${name}` : `Search · ${name}`,
    description: `Search ${name}`,
    url: new URL(c.req.url).origin + searchPath(mount, q),
    siteName: name,
    // Result pages are never indexed; the pages they list are.
    noindex: true,
    type: "website",
  };
  return String(
    document(
      meta,
      <Shell portal={portal} links={links} current={null} q={q}>
        <SearchArticle q={q} result={result} links={links} />
      </Shell>,
    ),
  );
}

export function searchPath(mount: Mount, q: string) {
  return `${linksOf(mount).search}?q=${encodeURIComponent(q)}`;
}
