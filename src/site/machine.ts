/**
 * The reader site for machines (docs/api-guide.md › Automations, published portals, collaborative editing): a
 * portal's `llms.txt` (its title, summary and pages as Markdown links, after the llms.txt convention) and each
 * published page as Markdown (`{page}.md`, through the same conversion as the Markdown export, docs/api-guide.md ›
 * Markdown import and export).
 * ./handler.tsx serves them with the pages' access, expiry and caching rules; this file only writes the text.
 */
import type { Context } from "hono";
import type { HonoEnv } from "../env";
import type { PortalDocument, PortalState } from "../services/portals/state";
import { blocksToMarkdown } from "../services/markdown/toMarkdown";
import { linksOf, readBlocks, siteName, type Mount } from "./render";

/** What a site path asks for: the HTML page, its Markdown copy, or the portal's llms.txt. */
export type SiteFormat = "html" | "md" | "llms";

export const CONTENT_TYPES: Record<SiteFormat, string> = {
  html: "text/html; charset=UTF-8",
  md: "text/markdown; charset=UTF-8",
  llms: "text/plain; charset=UTF-8",
};

export const LLMS_PATH = "llms.txt";
export const MD_SUFFIX = ".md";

/** The path of a page's Markdown copy, or of the portal's llms.txt, where the portal is mounted. */
export function machinePath(mount: Mount, docId: string | null): string {
  const links = linksOf(mount);
  if (docId) return `${links.doc(docId)}${MD_SUFFIX}`;
  return mount.ownDomain ? `/${LLMS_PATH}` : `${links.home}/${LLMS_PATH}`;
}

/** Markdown has no escapes for link text beyond brackets and backslashes; titles are one line. */
function linkText(s: string): string {
  return s.replace(/[\r\n]+/g, " ").replace(/([\\[\]])/g, "\\$1");
}

/** Pages a machine can read as Markdown: documents and folders (a folder lists its pages); EXTERNAL files are not. */
export function readablePages(portal: PortalState): PortalDocument[] {
  return portal.documents.filter((d) => d.type !== "EXTERNAL");
}

/** llms.txt: `# title`, `> summary`, then `## Pages` with one Markdown link per published page, in tree order. */
export function renderLlmsTxt(c: Context<HonoEnv>, portal: PortalState, mount: Mount): string {
  const origin = new URL(c.req.url).origin;
  const summary = portal.project.description.replace(/\s+/g, " ").trim();
  const lines = [`# ${linkText(siteName(portal))}`, ""];
  if (summary) lines.push(`> ${summary}`, "");
  lines.push("## Pages", "");
  const byParent = new Map<string | null, PortalDocument[]>();
  const pages = readablePages(portal);
  const known = new Set(pages.map((d) => d._id));
  for (const d of pages) {
    const parent = d.parentId !== null && known.has(d.parentId) ? d.parentId : null;
    byParent.set(parent, [...(byParent.get(parent) ?? []), d]);
  }
  const walk = (parent: string | null, depth: number) => {
    for (const d of byParent.get(parent) ?? []) {
      const note = d.description.replace(/\s+/g, " ").trim();
      const url = origin + machinePath(mount, d._id);
      lines.push(`${"  ".repeat(depth)}- [${linkText(d.name)}](${url})${note ? `: ${note}` : ""}`);
      if (depth < 20) walk(d._id, depth + 1);
    }
  };
  walk(null, 0);
  return `${lines.join("\n")}\n`;
}

/** A published page as Markdown: a document's content under its title, a folder's title and the links to its pages. */
export async function renderPageMarkdown(
  c: Context<HonoEnv>,
  portal: PortalState,
  mount: Mount,
  doc: PortalDocument,
): Promise<string> {
  const head = `# ${doc.name.replace(/[\r\n]+/g, " ")}\n\n`;
  if (doc.type === "FOLDER") {
    const origin = new URL(c.req.url).origin;
    const children = readablePages(portal).filter((d) => d.parentId === doc._id);
    const list = children.map((d) => `- [${linkText(d.name)}](${origin + machinePath(mount, d._id)})`).join("\n");
    return head + (list ? `${list}\n` : "");
  }
  return head + blocksToMarkdown(await readBlocks(c, doc));
}
