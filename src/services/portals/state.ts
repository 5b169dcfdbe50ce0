/**
 * Everything a portal shows except document bodies, read in ONE D1 query (docs/api-guide.md › Automations, published portals, collaborative editing; HTTP semantics: retries, caching, replicas): the entry, the
 * project's name, description, icon, emoji and branding, and every published, non-deleted document with its content
 * version. The portal `version` is a SHA-256 digest of that row, so it changes whenever anything shown changes —
 * an entry or branding write, a published document's metadata, its publication or deletion, or its content (each
 * content write bumps the version stored beside it) — with no write path having to remember to bump a counter.
 * A cached page therefore costs this one query and a Cache API lookup.
 */
import type { ServiceContext } from "../context";
import type { Emoji, Icon, PublishedBranding } from "../../db/schema";
import { sha256Hex } from "../../lib/crypto";
import { httpUrlOrEmpty, socialHandleOrEmpty } from "../../lib/httpUrl";
import { portalsQuery } from "./queries";

export interface PortalDocument {
  _id: string;
  parentId: string | null;
  name: string;
  type: "FOLDER" | "DOCUMENT" | "EXTERNAL";
  order: number;
  icon: Icon | null;
  emoji: Emoji | null;
  description: string;
  updatedAt: number;
  contentVersion: number;
  /** R2 key of the current content object (null: never written). */
  contentKey: string | null;
}

export interface PortalState {
  slug: string;
  projectId: string;
  /** The entry's domain once verified; "" otherwise (a pending domain is never served). */
  domain: string;
  homepage: string;
  passwordHash: string | null;
  disabled: boolean;
  expiresAt: number | null;
  allowIndexing: boolean;
  project: {
    name: string;
    description: string;
    icon: Icon | null;
    emoji: Emoji | null;
    branding: PublishedBranding | null;
  };
  documents: PortalDocument[];
  /** Digest of all of the above: the portal version that ETags and cache keys are made from. */
  version: string;
}

export type PortalSelector = { slug: string } | { domain: string } | { projectId: string };

type Raw = {
  slug: string;
  projectId: string;
  domain: string | null;
  homepage: string;
  passwordHash: string | null;
  disabled: number;
  expiresAt: number | null;
  allowIndexing: number;
  entryUpdatedAt: number;
  name: string;
  description: string;
  icon: string | null;
  emoji: string | null;
  branding: string | null;
  projectUpdatedAt: number;
  docs: string;
};

/** Entries matching the selector (several only for a project id), oldest first, in one D1 round trip. */
export async function loadPortals(ctx: ServiceContext, sel: PortalSelector): Promise<PortalState[]> {
  // A project's entries are in its shard; a slug or a domain may be in any: every shard database at once.
  const dbs = "projectId" in sel ? [ctx.on(sel.projectId).db] : ctx.everyShard().map((shard) => shard.db);
  const found = await Promise.all(dbs.map((db) => db.all<Raw>(portalsQuery(sel))));
  return Promise.all(found.flat().map(toState));
}

async function toState(r: Raw): Promise<PortalState> {
  const docs = (JSON.parse(r.docs || "[]") as unknown[][]).map(
    ([
      _id,
      parentId,
      name,
      type,
      order,
      icon,
      emoji,
      description,
      updatedAt,
      contentVersion,
      contentKey,
    ]): PortalDocument => ({
      _id: _id as string,
      parentId: (parentId as string | null) ?? null,
      name: name as string,
      type: type as PortalDocument["type"],
      order: order as number,
      icon: (icon as Icon | null) ?? null,
      emoji: (emoji as Emoji | null) ?? null,
      description: description as string,
      updatedAt: updatedAt as number,
      contentVersion: contentVersion as number,
      contentKey: (contentKey as string | null) ?? null,
    }),
  );
  return {
    slug: r.slug,
    projectId: r.projectId,
    domain: r.domain ?? "",
    homepage: r.homepage,
    passwordHash: r.passwordHash,
    disabled: Boolean(r.disabled),
    expiresAt: r.expiresAt,
    allowIndexing: Boolean(r.allowIndexing),
    project: {
      name: r.name,
      description: r.description,
      icon: r.icon ? (JSON.parse(r.icon) as Icon) : null,
      emoji: r.emoji ? (JSON.parse(r.emoji) as Emoji) : null,
      branding: r.branding ? (JSON.parse(r.branding) as PublishedBranding) : null,
    },
    documents: docs,
    version: (await sha256Hex(JSON.stringify(r))).slice(0, 32),
  };
}

/** Whether readers may open the entry now: not disabled and not past `expiresAt` (an expired entry is a disabled one). */
export function isActive(p: { disabled: boolean; expiresAt: number | null }, now: number): boolean {
  return !p.disabled && (p.expiresAt === null || p.expiresAt > now);
}

/** Search engines may index the entry's pages only when it allows it and is neither protected nor expiring. */
export function isIndexable(p: PortalState): boolean {
  return p.allowIndexing && p.passwordHash === null && p.expiresAt === null;
}

/**
 * E13's shape: the stored branding with every member present, or null when none was ever set. Links are returned
 * only when they are http(s) (a value stored before that rule reads as ""), so no reader is handed a `javascript:` URL.
 */
export function brandingDto(b: PublishedBranding | null) {
  if (!b) return null;
  return {
    company: {
      name: b.company?.name ?? "",
      logo: httpUrlOrEmpty(b.company?.logo),
      url: httpUrlOrEmpty(b.company?.url),
    },
    callToAction: {
      enabled: b.callToAction?.enabled ?? false,
      icon: { name: b.callToAction?.icon?.name ?? "", color: b.callToAction?.icon?.color ?? "" },
      text: b.callToAction?.text ?? "",
      url: httpUrlOrEmpty(b.callToAction?.url),
    },
    socials: (b.socials ?? []).map((s) => ({ platform: s.platform, handle: socialHandleOrEmpty(s.handle) })),
  };
}

/**
 * The Project record's `publishedBranding` (specification, Project): company and call to action with every leaf a
 * string. E13's own members (`callToAction.enabled`, `socials`) belong to that endpoint's shape, not this one.
 */
/** What `published[].password` shows for an entry with a password; sent back on a PATCH it keeps the password. */
export const MASKED_PASSWORD = "********";

export function projectBrandingDto(b: PublishedBranding | null) {
  const full = brandingDto(b);
  if (!full) return null;
  const { enabled: _enabled, ...callToAction } = full.callToAction;
  return { company: full.company, callToAction };
}

export function projectDataOf(p: PortalState) {
  return {
    name: p.project.name,
    description: p.project.description,
    icon: p.project.icon,
    emoji: p.project.emoji,
    homepage: p.homepage,
    documents: p.documents.map((d) => ({
      _id: d._id,
      parentId: d.parentId,
      name: d.name,
      type: d.type,
      order: d.order,
      icon: d.icon,
      emoji: d.emoji,
    })),
  };
}
