/**
 * The `published` JSON mirror of a project (src/db/schema/portals.ts): rebuilt in SQL from the project's entries in
 * every entry write's batch (`mirror` in ./queries.ts), and predicted here in code for a publish, whose answer (the project as the write leaves
 * it) is kept with the write under its Idempotency-Key (docs/api-guide.md › HTTP semantics). The prediction holds
 * because the write is guarded by the project row read for it (`projectFingerprint`): every change to the project or
 * its entries rewrites that row, and a changed row makes the guarded write and its kept answer do nothing at all.
 */
import type { PublishedEntry, publishedEntries } from "../../db/schema";

type EntryRow = typeof publishedEntries.$inferSelect;

/** An entry as the mirror holds it (what `mirror` builds from its row). */
function mirrorEntry(e: EntryRow): PublishedEntry {
  return {
    slug: e.slug,
    domain: e.domain ?? "",
    homepage: e.homepage,
    passwordHash: e.passwordHash,
    disabled: e.disabled,
    expiresAt: e.expiresAt,
    allowIndexing: e.allowIndexing,
    domainToken: e.domainToken,
    domainVerifiedAt: e.domainVerifiedAt,
  };
}

/** The mirror the project will hold once `added` is written beside its `entries` (the SQL's order: created_at, slug). */
export function predictedMirror(entries: readonly EntryRow[], added: EntryRow): PublishedEntry[] {
  const before = (a: EntryRow, b: EntryRow) =>
    a.createdAt !== b.createdAt ? a.createdAt - b.createdAt : a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0;
  return [...entries, added].sort(before).map(mirrorEntry);
}
