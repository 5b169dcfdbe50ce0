/** createTable: POST /table (src/routes/tables/create.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { makeTable } from "../../support/tableHarness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

describe("tables", () => {
  it("validates create and patch bodies", async () => {
    expectError(
      await call("POST", "/table", { token: t.owner.token, body: { projectId: t.projectId } }),
      400,
      "ValidationError",
    );
    expectError(
      await call("POST", "/table", { token: t.owner.token, body: { projectId: t.projectId, name: "  " } }),
      400,
      "ValidationError",
    );
    expectError(
      await call("POST", "/table", { token: t.owner.token, body: { projectId: t.projectId, name: "x", extra: 1 } }),
      400,
      "ValidationError",
    );
    expectError(
      await call("POST", "/table", { token: t.owner.token, body: { projectId: "bad id!", name: "x" } }),
      400,
      "ValidationError",
    );
    const { tableId } = await makeTable(t.owner.token, t.projectId);
    expectError(await call("PATCH", `/table/${tableId}`, { token: t.owner.token, body: {} }), 400, "ValidationError");
    expectError(
      await call("PATCH", `/table/${tableId}`, { token: t.owner.token, body: { name: "x", bogus: true } }),
      400,
      "ValidationError",
    );
    expectError(await call("GET", "/table/bad%20id", { token: t.owner.token }), 400, "ValidationError");
  });

  it("answers 404 for missing projects, tables and documents, 403 for viewers, 400 for a document of another project", async () => {
    expectError(
      await call("POST", "/table", { token: t.owner.token, body: { projectId: "01NOPE", name: "x" } }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("POST", "/table", { token: t.viewer.token, body: { projectId: t.projectId, name: "x" } }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("POST", "/table", { token: t.outsider.token, body: { projectId: t.projectId, name: "x" } }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("POST", "/table", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "x", documentId: "01NOPE" },
      }),
      404,
      "NotFoundError",
    );
    // Existence and read access come before the role (docs/api-guide.md › Conventions): a viewer naming a missing document gets 404, not 403.
    expectError(
      await call("POST", "/table", {
        token: t.viewer.token,
        body: { projectId: t.projectId, name: "x", documentId: "01NOPE" },
      }),
      404,
      "NotFoundError",
    );
    const other = await ok("POST", "/project", {
      token: t.owner.token,
      body: { workspaceId: t.workspaceId, name: "Other" },
    });
    const otherDoc = await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: other.data._id, name: "D", type: "DOCUMENT" },
    });
    const res = await call("POST", "/table", {
      token: t.owner.token,
      body: { projectId: t.projectId, name: "x", documentId: otherDoc.data._id },
    });
    expectError(res, 400, "ValidationError");
    expect(res.body.details[0].path).toBe("documentId");

    const { tableId } = await makeTable(t.owner.token, t.projectId);
    expectError(await call("GET", "/table/01NOPE", { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("GET", `/table/${tableId}`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(
      await call("PATCH", `/table/${tableId}`, { token: t.viewer.token, body: { name: "y" } }),
      403,
      "ForbiddenError",
    );
    expectError(await call("DELETE", `/table/${tableId}`, { token: t.viewer.token }), 403, "ForbiddenError");
  });
});
