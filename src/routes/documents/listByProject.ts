import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { and, asc, eq } from "drizzle-orm";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { documents } from "../../db/schema";
import { documentIdsGrantedInProject, requireProject } from "../../auth/access";
import { documentsWithCollaborators } from "../../services/documents/serialize";
import { DocumentSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "listDocuments",
  method: "get",
  path: "/document/all/{projectId}",
  tags: ["Documents"],
  summary: "The project's document tree: readable, non-deleted documents ordered by parentId, order",
  security,
  request: { params: z.object({ projectId: pathId("projectId") }) },
  responses: { ...okData(z.array(DocumentSchema)), ...errorResponses() },
});

export function registerListDocuments(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const user = c.get("user");
    const { projectId } = c.req.valid("param");
    const { workspaceRole } = await requireProject(db, user, projectId, "read");
    let rows = await db
      .select()
      .from(documents)
      .where(and(eq(documents.projectId, projectId), eq(documents.isDeleted, false)))
      .orderBy(asc(documents.parentId), asc(documents.order), asc(documents.createdAt));
    if (!workspaceRole) {
      const granted = await documentIdsGrantedInProject(db, user._id, projectId);
      rows = rows.filter((r) => granted.has(r.id));
    }
    return c.json({ data: await documentsWithCollaborators(db, rows) }, 200);
  });
}
