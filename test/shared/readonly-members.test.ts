import { describe, expect, it } from "vitest";
import { ok, seedTenant } from "../support/harness";

/** docs/api-guide.md › Conventions: members a record's response carries are accepted on writes and ignored, so clients can send back what they read. */
describe("response-only members on create and write bodies", () => {
  it("accepts and ignores them, never applying them", async () => {
    const t = await seedTenant();
    const token = t.owner.token;
    const ws = await ok("POST", "/workspace", {
      token,
      body: {
        organizationId: t.organizationId,
        name: "W",
        _id: "forged",
        isDefault: true,
        ownerId: t.outsider.id,
        collaborators: [],
        createdAt: 1,
      },
    });
    expect(ws.data).toMatchObject({ isDefault: false, ownerId: t.owner.id });
    expect(ws.data._id).not.toBe("forged");
    const project = await ok("POST", "/project", {
      token,
      body: {
        workspaceId: t.workspaceId,
        name: "P",
        userId: t.outsider.id,
        published: [{ slug: "x" }],
        publishedBranding: { company: {} },
        createdAt: 5,
      },
    });
    expect(project.data).toMatchObject({ userId: t.owner.id, published: [], publishedBranding: null });
    expect(project.data.createdAt).toBeGreaterThan(5);
    const doc = await ok("POST", "/document", {
      token,
      body: {
        projectId: t.projectId,
        name: "D",
        type: "DOCUMENT",
        external: { type: "DOCX", resourcePath: "/x", resourceId: "y" },
        isPublished: true,
        isDeleted: true,
        collaborators: [{ userId: t.outsider.id, role: "owner" }],
        userId: t.outsider.id,
      },
    });
    expect(doc.data).toMatchObject({ external: null, isPublished: false, isDeleted: false, userId: t.owner.id });
    expect(doc.data.collaborators).toEqual([{ userId: t.owner.id, role: "owner" }]);
    const content = await ok("GET", `/document/${doc.data._id}/content`, { token });
    const written = await ok("PUT", `/document/${doc.data._id}/content`, {
      token,
      body: { ...content.data, blocks: [{ id: "a" }], baseVersion: 0 },
    });
    expect(written.data.version).toBe(1);
    const snap = await ok("POST", "/snapshot", {
      token,
      body: { documentId: doc.data._id, name: "S", contentVersion: 99, userId: t.outsider.id },
    });
    expect(snap.data.contentVersion).toBe(1);
    const read = await ok("GET", `/snapshot/${snap.data._id}`, { token });
    await ok("PUT", `/snapshot/${snap.data._id}`, { token, body: { ...read.data, name: "Renamed" } });
  });
});
