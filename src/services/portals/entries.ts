/**
 * Publishing a project (API.md §15): entries with a slug unique across the service (and an optional domain, also
 * unique), homepage, PBKDF2-hashed password, disabled flag, expiry and indexing switch; and the portal branding.
 * Project admins (workspace owner/admin) only. Each write is one D1 batch that changes `published_entries` and
 * rewrites the project's `published` JSON mirror from it, so the two never disagree.
 */
import { and, eq, sql } from "drizzle-orm";
import { documents, projects, publishedEntries, type PublishedBranding } from "../../db/schema";
import type { AuthUser, Db } from "../../env";
import { conflict, notFound, unprocessable } from "../../errors";
import { requireProject } from "../../auth/access";
import { isUniqueViolation } from "../../db/errors";
import { projectDto } from "../workspaces/serialize";
import { hashPassword } from "./password";

export interface PortalWriteCtx {
  db: Db;
  user: AuthUser;
  now: number;
}

export interface PublishInput {
  slug: string;
  domain?: string;
  homepage?: string;
  password?: string | null;
  expiresAt?: number | null;
  allowIndexing?: boolean;
}

export interface EntryPatch {
  domain?: string;
  homepage?: string;
  password?: string | null;
  disabled?: boolean;
  expiresAt?: number | null;
  allowIndexing?: boolean;
}

/** The `published` mirror of a project, rebuilt from its entries (oldest first). */
function mirror(projectId: string) {
  return sql`(SELECT json_group_array(json(x)) FROM (
    SELECT json_object('slug', slug, 'domain', coalesce(domain, ''), 'homepage', homepage, 'passwordHash', password_hash,
      'disabled', json(CASE WHEN disabled THEN 'true' ELSE 'false' END), 'expiresAt', expires_at,
      'allowIndexing', json(CASE WHEN allow_indexing THEN 'true' ELSE 'false' END)) AS x
    FROM published_entries WHERE project_id = ${projectId} ORDER BY created_at, slug))`;
}

async function homepageProblem(db: Db, projectId: string, homepage: string | undefined): Promise<string | null> {
  if (!homepage) return null;
  const [row] = await db
    .select({ id: documents.id })
    .from(documents)
    .where(and(eq(documents.id, homepage), eq(documents.projectId, projectId), eq(documents.isDeleted, false)));
  return row ? null : "homepage must be the id of a document of this project";
}

function uniqueFailure(err: unknown): never {
  if (isUniqueViolation(err, "published_entries.slug")) throw conflict("This slug is already in use");
  if (isUniqueViolation(err, "published_entries.domain")) throw conflict("This domain is already used by another portal");
  throw err;
}

async function refreshMirror(ctx: PortalWriteCtx, projectId: string, write: Parameters<Db["batch"]>[0][number]) {
  const { db } = ctx;
  try {
    const [, rows] = await db.batch([
      write,
      db.update(projects).set({ published: mirror(projectId) as never, updatedAt: ctx.now }).where(eq(projects.id, projectId)).returning(),
    ]);
    return projectDto((rows as (typeof projects.$inferSelect)[])[0]!);
  } catch (err) {
    uniqueFailure(err);
  }
}

export async function publishProject(ctx: PortalWriteCtx, projectId: string, input: PublishInput) {
  const { db } = ctx;
  const [, problem] = await Promise.all([requireProject(db, ctx.user, projectId, "admin"), homepageProblem(db, projectId, input.homepage)]);
  if (problem) throw unprocessable(problem, [{ path: "homepage", message: problem }]);
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  return refreshMirror(
    ctx,
    projectId,
    db.insert(publishedEntries).values({
      slug: input.slug,
      projectId,
      domain: input.domain || null,
      homepage: input.homepage ?? "",
      passwordHash,
      disabled: false,
      expiresAt: input.expiresAt ?? null,
      allowIndexing: input.allowIndexing ?? false,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    }),
  );
}

/**
 * The project admin check and the entry lookup run concurrently; their failures answer in the order of API.md §1:
 * no project access (404), then no such entry (404), then the role (403).
 */
async function requireAdminAndEntry(db: Db, user: AuthUser, projectId: string, slug: string) {
  const [project, entry] = await Promise.allSettled([requireProject(db, user, projectId, "admin"), requireEntry(db, projectId, slug)]);
  if (project.status === "rejected" && (project.reason as { code?: string }).code === "NotFoundError") throw project.reason;
  if (entry.status === "rejected") throw entry.reason;
  if (project.status === "rejected") throw project.reason;
}

async function requireEntry(db: Db, projectId: string, slug: string) {
  const [row] = await db
    .select({ slug: publishedEntries.slug })
    .from(publishedEntries)
    .where(and(eq(publishedEntries.slug, slug), eq(publishedEntries.projectId, projectId)));
  if (!row) throw notFound("Published entry");
}

export async function updatePublishedEntry(ctx: PortalWriteCtx, projectId: string, slug: string, patch: EntryPatch) {
  const { db } = ctx;
  const [, problem] = await Promise.all([requireAdminAndEntry(db, ctx.user, projectId, slug), homepageProblem(db, projectId, patch.homepage)]);
  if (problem) throw unprocessable(problem, [{ path: "homepage", message: problem }]);
  const passwordHash = patch.password === undefined ? undefined : patch.password ? await hashPassword(patch.password) : null;
  return refreshMirror(
    ctx,
    projectId,
    db
      .update(publishedEntries)
      .set({
        ...(patch.domain !== undefined && { domain: patch.domain || null }),
        ...(patch.homepage !== undefined && { homepage: patch.homepage }),
        ...(passwordHash !== undefined && { passwordHash }),
        ...(patch.disabled !== undefined && { disabled: patch.disabled }),
        ...(patch.expiresAt !== undefined && { expiresAt: patch.expiresAt }),
        ...(patch.allowIndexing !== undefined && { allowIndexing: patch.allowIndexing }),
        updatedAt: ctx.now,
      })
      .where(and(eq(publishedEntries.slug, slug), eq(publishedEntries.projectId, projectId))),
  );
}

export async function unpublishProject(ctx: PortalWriteCtx, projectId: string, slug: string) {
  const { db } = ctx;
  await requireAdminAndEntry(db, ctx.user, projectId, slug);
  return refreshMirror(ctx, projectId, db.delete(publishedEntries).where(and(eq(publishedEntries.slug, slug), eq(publishedEntries.projectId, projectId))));
}

export async function putBranding(ctx: PortalWriteCtx, projectId: string, branding: PublishedBranding) {
  const { db } = ctx;
  await requireProject(db, ctx.user, projectId, "admin");
  const [row] = await db.update(projects).set({ publishedBranding: branding, updatedAt: ctx.now }).where(eq(projects.id, projectId)).returning();
  return projectDto(row!);
}
