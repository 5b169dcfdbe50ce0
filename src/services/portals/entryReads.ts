/**
 * The reads every write of a published entry starts with (docs/api-guide.md › Automations, published portals,
 * collaborative editing): project admin, the entry, the homepage document and whether another portal holds the
 * domain verified, in one read batch; for a publish also the project's entries and fingerprint, from which it
 * predicts its answer (./mirror.ts). The statements are built in ./queries.ts; the writes are ./entries.ts.
 */
import { eq } from "drizzle-orm";
import { projects, publishedEntries } from "../../db/schema";
import { notFound, unprocessable, conflict } from "../../errors";
import { checkProjectAccess, projectAccessStatement } from "../../auth/access";
import { read, type ServiceContext } from "../context";
import {
  ENTRY_DOMAIN,
  entryStatement,
  homepageStatement,
  projectFingerprint,
  verifiedDomainStatement,
} from "./queries";

function checkHomepage(homepage: string | undefined, found: readonly unknown[]) {
  if (homepage && found.length === 0) {
    const problem = "homepage must be the id of a document of this project";
    throw unprocessable(problem, [{ path: "homepage", message: problem }]);
  }
}

/**
 * Project admin, the entry (when named), the homepage and whether another portal holds the domain verified, in one
 * read batch (with the request's authentication when it is folded in). Failures answer in the order of docs/api-guide.md › Conventions: no
 * project access (404), no such entry (404), role (403), then the homepage's meaning (422), then the domain (409).
 */
export async function loadForWrite(
  ctx: ServiceContext,
  projectId: string,
  slug: string | null,
  homepage: string | undefined,
  domain?: string | typeof ENTRY_DOMAIN,
) {
  return (await loadProjectForWrite(ctx, projectId, slug, homepage, domain)).entry;
}

/** loadForWrite with the project row, its entries and its fingerprint (what a publish predicts its answer from). */
export async function loadProjectForWrite(
  ctx: ServiceContext,
  projectId: string,
  slug: string | null,
  homepage: string | undefined,
  domain?: string | typeof ENTRY_DOMAIN,
) {
  const [[projectRow], entries, homepageRows, domainHolders, allEntries, [print]] = await read(ctx, [
    projectAccessStatement(ctx.db, ctx.user.ref, projectId),
    entryStatement(ctx.db, projectId, slug ?? ""),
    homepageStatement(ctx.db, projectId, homepage),
    verifiedDomainStatement(ctx.db, domain, slug),
    ctx.db
      .select()
      .from(publishedEntries)
      .where(eq(publishedEntries.projectId, slug === null ? projectId : "")),
    ctx.db
      .select({ fingerprint: projectFingerprint })
      .from(projects)
      .where(eq(projects.id, slug === null ? projectId : "")),
  ]);
  checkProjectAccess(projectRow, "read");
  if (slug !== null && entries.length === 0) throw notFound("Published entry");
  const { project } = checkProjectAccess(projectRow, "admin");
  checkHomepage(homepage, homepageRows);
  if (domain && domainHolders.length > 0) throw conflict("This domain is already used by another portal");
  return { entry: entries[0], project, entries: allEntries, fingerprint: print?.fingerprint ?? "" };
}
