/**
 * Projects (docs/api-guide.md › Projects and documents): reads in one D1 round trip (authentication, access and data in one batch), writes in two
 * (the access batch, then the write).
 */
import { and, eq } from "drizzle-orm";
import { nextUpdatedAt } from "../../db/sql";
import {
  checkProjectAccess,
  checkWorkspaceAccess,
  projectAccessStatement,
  workspaceAccessStatement,
  workspaceRoleStatement,
} from "../../auth/access";
import { projects, type Emoji, type Icon } from "../../db/schema";
import { notFound, preconditionFailed } from "../../errors";
import type { ExpectedVersion } from "../../lib/etag";
import { assertExpectedVersion } from "../preconditions";
import { read, type ServiceContext } from "../context";
import { keptAnswerUpdates } from "../idempotency";
import { projectDto } from "../workspaces/serialize";
import { readableProjectsStatement } from "./queries";

export type ProjectDto = ReturnType<typeof projectDto>;

/** A project the caller can read (through its workspace or a document grant); else 404. */
export async function getProject(ctx: ServiceContext, { projectId }: { projectId: string }): Promise<ProjectDto> {
  const [rows] = await read(ctx, [projectAccessStatement(ctx.db, ctx.user.ref, projectId)]);
  return projectDto(checkProjectAccess(rows[0], "read").project, ctx.now);
}

/**
 * E12: every project of the workspace for its collaborators; for others, the projects in which a document grant
 * reaches a live document. A workspace the caller can see nothing of is 404.
 */
export async function listProjects(
  ctx: ServiceContext,
  { workspaceId }: { workspaceId: string },
): Promise<ProjectDto[]> {
  const [role, rows] = await read(ctx, [
    workspaceRoleStatement(ctx.db, ctx.user.ref, workspaceId),
    readableProjectsStatement(ctx.db, ctx.user.ref, workspaceId),
  ]);
  if (role.length === 0 && rows.length === 0) throw notFound("Workspace");
  return rows.map((r) => projectDto(r, ctx.now));
}

export interface ProjectFields {
  name?: string;
  description?: string;
  reference?: string;
  icon?: Icon | null;
  emoji?: Emoji | null;
}

/** Creates a project in a workspace where the caller is owner, admin or editor. */
export async function createProject(
  ctx: ServiceContext,
  input: ProjectFields & { workspaceId: string; name: string },
): Promise<ProjectDto> {
  const [ws] = await read(ctx, [workspaceAccessStatement(ctx.db, ctx.user.ref, input.workspaceId)]);
  checkWorkspaceAccess(ws[0], "edit");
  const row: typeof projects.$inferSelect = {
    id: ctx.ids.beside(input.workspaceId),
    workspaceId: input.workspaceId,
    userId: ctx.user.id,
    name: input.name,
    originId: "",
    description: input.description ?? "",
    reference: input.reference ?? "",
    icon: input.icon ?? null,
    emoji: input.emoji ?? null,
    published: [],
    publishedBranding: null,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  };
  const dto = projectDto(row, ctx.now);
  // A keyed request's answer commits with the project (services/idempotency.ts), so a crash cannot part them.
  await ctx.db.batch([
    ctx.db.insert(projects).values(row),
    ...(await keptAnswerUpdates(ctx, { payload: { data: dto } })),
  ]);
  return dto;
}

/**
 * Updates a project (workspace owner, admin or editor). With `expected`, the project's current representation (what
 * its GET returns) must carry that ETag, else 412 and nothing changes.
 */
export async function updateProject(
  ctx: ServiceContext,
  input: { projectId: string; patch: ProjectFields; expected?: ExpectedVersion },
): Promise<ProjectDto> {
  const [rows] = await read(ctx, [projectAccessStatement(ctx.db, ctx.user.ref, input.projectId)]);
  const { project } = checkProjectAccess(rows[0], "write");
  await assertExpectedVersion(input.expected, () => ({ data: projectDto(project, ctx.now) }));
  const { name, description, reference, icon, emoji } = input.patch;
  const [row] = await ctx.db
    .update(projects)
    .set({
      ...(name !== undefined && { name }),
      ...(description !== undefined && { description }),
      ...(reference !== undefined && { reference }),
      ...(icon !== undefined && { icon }),
      ...(emoji !== undefined && { emoji }),
      updatedAt: nextUpdatedAt(projects.updatedAt, ctx.now),
    })
    // With If-Match, a compare-and-set on the row as checked: a concurrent write in between makes this a 412.
    .where(
      and(
        eq(projects.id, input.projectId),
        input.expected === undefined ? undefined : eq(projects.updatedAt, project.updatedAt),
      ),
    )
    .returning();
  if (!row) throw preconditionFailed();
  return projectDto(row, ctx.now);
}
