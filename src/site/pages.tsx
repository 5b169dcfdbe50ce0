/** @jsxImportSource hono/jsx */
/** Reader-site pages (docs/api-guide.md › Automations, published portals, collaborative editing): layout with branding, navigation tree, document page, password form, 404/403. */
import type { Child } from "hono/jsx";
import type { PortalDocument, PortalState } from "../services/portals/state";
import { brandingDto } from "../services/portals/state";
import { emojiChar, safeHref, safeImageSrc } from "./safe";
import { plainText, renderBlocks } from "./blocks";
import { CSS_HREF } from "./assets";

export interface PageMeta {
  title: string;
  description: string;
  /** Absolute URL of this page (og:url). */
  url: string;
  siteName: string;
  noindex: boolean;
  image?: string | null;
  type?: "website" | "article";
}

function Head({ meta }: { meta: PageMeta }) {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{meta.title}</title>
      <meta name="description" content={meta.description} />
      {meta.noindex ? <meta name="robots" content="noindex, nofollow" /> : null}
      <meta property="og:title" content={meta.title} />
      <meta property="og:description" content={meta.description} />
      <meta property="og:type" content={meta.type ?? "website"} />
      <meta property="og:url" content={meta.url} />
      <meta property="og:site_name" content={meta.siteName} />
      {meta.image ? <meta property="og:image" content={meta.image} /> : null}
      <link rel="stylesheet" href={CSS_HREF} />
    </head>
  );
}

export function document(meta: PageMeta, body: Child): Child {
  return (
    <html lang="en">
      <Head meta={meta} />
      <body>{body}</body>
    </html>
  );
}

const SOCIAL_URL: Record<string, (h: string) => string> = {
  x: (h) => `https://x.com/${h}`,
  twitter: (h) => `https://x.com/${h}`,
  linkedin: (h) => `https://www.linkedin.com/in/${h}`,
  github: (h) => `https://github.com/${h}`,
  facebook: (h) => `https://www.facebook.com/${h}`,
  instagram: (h) => `https://www.instagram.com/${h}`,
  youtube: (h) => `https://www.youtube.com/@${h}`,
  mastodon: (h) => h,
};

const SOCIAL_LABEL: Record<string, string> = {
  x: "X",
  twitter: "X",
  linkedin: "LinkedIn",
  github: "GitHub",
  facebook: "Facebook",
  instagram: "Instagram",
  youtube: "YouTube",
  mastodon: "Mastodon",
};

function socialLink(platform: string, handle: string): string | null {
  const direct = safeHref(handle);
  if (direct) return direct;
  const make = SOCIAL_URL[platform.toLowerCase()];
  const clean = handle.replace(/^@/, "");
  if (!make || !/^[A-Za-z0-9_.-]{1,100}$/.test(clean)) return null;
  return safeHref(make(encodeURIComponent(clean)));
}

export interface Links {
  home: string;
  doc: (id: string) => string;
  /** The portal's search page (a plain GET form posts `q` to it). */
  search: string;
}

/** The search box on every page: a plain GET form, so it works without JavaScript. */
function SearchBox({ links, q }: { links: Links; q: string }) {
  return (
    <form class="site-search" role="search" method="get" action={links.search}>
      <label for="site-search-q">Search this site</label>
      <input id="site-search-q" name="q" type="search" value={q} maxlength={500} />
      <button type="submit">Search</button>
    </form>
  );
}

function Header({ portal, links }: { portal: PortalState; links: Links }) {
  const b = brandingDto(portal.project.branding);
  const name = b?.company.name || portal.project.name;
  const logo = safeImageSrc(b?.company.logo);
  const companyUrl = safeHref(b?.company.url) ?? links.home;
  const cta = b?.callToAction.enabled ? b.callToAction : null;
  const ctaUrl = cta ? safeHref(cta.url) : null;
  return (
    <header class="site-header">
      <a class="brand" href={companyUrl}>
        {logo ? <img src={logo} alt="" /> : null}
        <span>{name}</span>
      </a>
      {cta && ctaUrl && cta.text ? (
        <a class="cta" href={ctaUrl} rel="noopener noreferrer">
          {cta.text}
        </a>
      ) : cta && cta.text ? (
        <span class="cta">{cta.text}</span>
      ) : null}
    </header>
  );
}

function Footer({ portal }: { portal: PortalState }) {
  const b = brandingDto(portal.project.branding);
  const socials = (b?.socials ?? []).filter((s) => s.handle);
  return (
    <footer class="site-footer">
      <span>{b?.company.name || portal.project.name}</span>
      {socials.length ? (
        <ul aria-label="Social media">
          {socials.map((s) => {
            const href = socialLink(s.platform, s.handle);
            const label = `${SOCIAL_LABEL[s.platform.toLowerCase()] ?? s.platform}: ${s.handle}`;
            return (
              <li>
                {href ? (
                  <a href={href} rel="noopener noreferrer">
                    {label}
                  </a>
                ) : (
                  label
                )}
              </li>
            );
          })}
        </ul>
      ) : null}
    </footer>
  );
}

function byOrder(a: PortalDocument, b: PortalDocument) {
  return a.order - b.order || a.name.localeCompare(b.name) || a._id.localeCompare(b._id);
}

/** Children of each published document; a document whose parent is not published sits at the root. */
export function treeOf(docs: PortalDocument[]): Map<string | null, PortalDocument[]> {
  const ids = new Set(docs.map((d) => d._id));
  const tree = new Map<string | null, PortalDocument[]>();
  for (const d of docs) {
    const parent = d.parentId && ids.has(d.parentId) ? d.parentId : null;
    const list = tree.get(parent) ?? [];
    list.push(d);
    tree.set(parent, list);
  }
  for (const list of tree.values()) list.sort(byOrder);
  return tree;
}

function label(d: PortalDocument): string {
  const e = emojiChar(d.emoji?.unified);
  return e ? `${e} ${d.name}` : d.name;
}

function NavList({
  parent,
  tree,
  links,
  current,
  depth,
}: {
  parent: string | null;
  tree: Map<string | null, PortalDocument[]>;
  links: Links;
  current: string | null;
  depth: number;
}): Child {
  const items = tree.get(parent) ?? [];
  if (items.length === 0 || depth > 32) return null;
  return (
    <ul>
      {items.map((d) => (
        <li>
          <a href={links.doc(d._id)} aria-current={d._id === current ? "page" : undefined}>
            {label(d)}
          </a>
          <NavList parent={d._id} tree={tree} links={links} current={current} depth={depth + 1} />
        </li>
      ))}
    </ul>
  );
}

export function Shell({
  portal,
  links,
  current,
  children,
  q = "",
}: {
  portal: PortalState;
  links: Links;
  current: string | null;
  children: Child;
  q?: string;
}) {
  const tree = treeOf(portal.documents);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <Header portal={portal} links={links} />
      <div class="layout">
        <nav class="site-nav" aria-label="Documents">
          <SearchBox links={links} q={q} />
          <h2>
            <a href={links.home} aria-current={current === null ? "page" : undefined}>
              {portal.project.name}
            </a>
          </h2>
          <NavList parent={null} tree={tree} links={links} current={current} depth={0} />
        </nav>
        <main id="main">{children}</main>
      </div>
      <Footer portal={portal} />
    </>
  );
}

/** The document's own page body: its blocks, or the list of its children for a folder. */
export function DocumentArticle({
  portal,
  doc,
  blocks,
  links,
}: {
  portal: PortalState;
  doc: PortalDocument;
  blocks: unknown;
  links: Links;
}) {
  const children = treeOf(portal.documents).get(doc._id) ?? [];
  return (
    <article>
      <h1>{label(doc)}</h1>
      {doc.description ? <p class="lead">{doc.description}</p> : null}
      {doc.type === "EXTERNAL" ? (
        <p class="notice">This document is a file; it cannot be shown on this page.</p>
      ) : (
        renderBlocks(blocks)
      )}
      {doc.type === "FOLDER" && children.length ? (
        <ul class="doc-list">
          {children.map((c) => (
            <li>
              <a href={links.doc(c._id)}>{label(c)}</a>
            </li>
          ))}
        </ul>
      ) : null}
    </article>
  );
}

/** The portal home without a homepage document: the project's description and its top-level documents. */
export function HomeArticle({ portal, links }: { portal: PortalState; links: Links }) {
  const roots = treeOf(portal.documents).get(null) ?? [];
  const e = emojiChar(portal.project.emoji?.unified);
  return (
    <article>
      <h1>{e ? `${e} ${portal.project.name}` : portal.project.name}</h1>
      {portal.project.description ? <p class="lead">{portal.project.description}</p> : null}
      {roots.length ? (
        <ul class="doc-list">
          {roots.map((d) => (
            <li>
              <a href={links.doc(d._id)}>{label(d)}</a>
            </li>
          ))}
        </ul>
      ) : (
        <p>Nothing has been published here yet.</p>
      )}
    </article>
  );
}

export function PasswordGate({
  portal,
  action,
  next,
  failed,
}: {
  portal: PortalState;
  action: string;
  next: string;
  failed: boolean;
}) {
  return (
    <main id="main" class="gate">
      <h1>{portal.project.name}</h1>
      <p>This portal is protected. Enter its password to continue.</p>
      <form method="post" action={action}>
        <input type="hidden" name="next" value={next} />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          required
          autocomplete="current-password"
          aria-describedby={failed ? "password-error" : undefined}
        />
        {failed ? (
          <p id="password-error" class="error" role="alert">
            That password is not correct.
          </p>
        ) : null}
        <button type="submit">Open</button>
      </form>
    </main>
  );
}

export function Problem({ title, message }: { title: string; message: string }) {
  return (
    <main id="main" class="gate">
      <h1>{title}</h1>
      <p>{message}</p>
    </main>
  );
}

/** A meta description: the given text, else the first text of the blocks, cut to 160 characters. */
export function describe(primary: string, blocks: unknown, fallback: string): string {
  let text = primary.trim();
  if (!text && Array.isArray(blocks)) {
    for (const b of blocks.slice(0, 20)) {
      text = plainText((b as { content?: unknown })?.content ?? "").trim();
      if (text) break;
    }
  }
  text ||= fallback;
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
}
