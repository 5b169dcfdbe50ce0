/** Shared setups of the documents' operation tests (test/routes/documents/). */
import { ok, registerUser, seedTenant } from "./harness";

/** A fresh tenant plus a second project of its workspace (with a folder) and an outsider's own project folder. */
export async function documentsFixture() {
  const t = await seedTenant();
  const otherProjectId = (
    await ok("POST", "/project", {
      token: t.owner.token,
      body: { workspaceId: t.workspaceId, name: "Other project" },
    })
  ).data._id as string;
  const otherFolderId = (
    await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: otherProjectId, name: "Other folder", type: "FOLDER" },
    })
  ).data._id as string;
  const outsiderProject = await ok("POST", "/project", {
    token: t.outsider.token,
    body: { workspaceId: t.outsider.workspaceId, name: "Theirs" },
  });
  const outsiderFolderId = (
    await ok("POST", "/document", {
      token: t.outsider.token,
      body: { projectId: outsiderProject.data._id, name: "Their folder", type: "FOLDER" },
    })
  ).data._id as string;
  return { t, otherProjectId, otherFolderId, outsiderFolderId };
}

/**
 * A fresh tenant's project tree  F/ { a, S/ { b } }   G/ { c }   root  with `reader` invited to F as a viewer and
 * `writer` as an editor (neither is a workspace collaborator).
 */
export async function documentTreeFixture() {
  const t = await seedTenant();
  const mk = async (body: Record<string, unknown>) =>
    (await ok("POST", "/document", { token: t.owner.token, body: { projectId: t.projectId, ...body } })).data
      ._id as string;
  const [reader, writer] = await Promise.all([registerUser("Reader"), registerUser("Writer")]);
  const F = await mk({ name: "F", type: "FOLDER" });
  const a = await mk({ parentId: F, name: "a", type: "DOCUMENT" });
  const S = await mk({ parentId: F, name: "S", type: "FOLDER" });
  const b = await mk({ parentId: S, name: "b", type: "DOCUMENT" });
  const G = await mk({ name: "G", type: "FOLDER" });
  const c = await mk({ parentId: G, name: "c", type: "DOCUMENT" });
  const root = await mk({ name: "root", type: "DOCUMENT" });
  await ok("POST", "/document/invite-user", { token: t.owner.token, body: { email: reader.email, documentId: F } });
  await ok("POST", "/document/invite-user", {
    token: t.owner.token,
    body: { email: writer.email, documentId: F, role: "editor" },
  });
  return { t, reader, writer, F, a, S, b, G, c, root };
}
