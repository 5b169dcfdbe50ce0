/** getOpenApiDocument: GET /openapi.json (src/routes/discovery/health.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { ok, seedTenant, call } from "../../support/harness";
import { DOCUMENT_KEYS } from "../../support/shapes";

describe("content", () => {
  beforeAll(async () => {
    await seedTenant();
  });

  describe("OpenAPI", () => {
    it("documents the content, DOCX, media and snapshot routes with raw-bytes bodies", async () => {
      const doc = await ok("GET", "/openapi.json");
      const paths = doc.paths;
      for (const p of [
        "/document/{documentId}/content",
        "/document/{documentId}/settings",
        "/document/docx",
        "/document/docx/{documentId}",
        "/document/docx/{documentId}/export",
        "/document/docx/{documentId}/mark-seeded",
        "/media/audio",
        "/media/audio/{audioId}",
        "/media/audio/{audioId}/content",
        "/snapshot",
        "/snapshot/all/{documentId}",
        "/snapshot/{snapshotId}",
        "/snapshot/{snapshotId}/restore",
      ]) {
        expect(paths[p], p).toBeDefined();
      }
      expect(paths["/media/audio"].post.requestBody.content["application/octet-stream"].schema).toMatchObject({
        type: "string",
        format: "binary",
      });
      expect(paths["/media/audio"].post.parameters.map((p: any) => p.name).sort()).toEqual([
        "Idempotency-Key",
        "documentId",
        "fileName",
        "mimeType",
        "workspaceId",
      ]);
      expect(paths["/document/docx"].post.requestBody.content[DOCX]).toBeDefined();
      expect(paths["/document/docx/{documentId}/export"].get.responses["200"].content[DOCX].schema).toMatchObject({
        format: "binary",
      });
      expect(paths["/media/audio/{audioId}/content"].get.security).toEqual([]);
      expect(paths["/snapshot/{snapshotId}"].put.summary).toMatch(/^E8/);
    });
  });

  const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
});

/** docs/api-guide.md › Discovery: /openapi.json, /docs and /health. */
const FOUNDATION_OPERATIONS: [method: string, path: string][] = [
  ["post", "/admin/users"],
  ["post", "/token"],
  ["get", "/token/all"],
  ["delete", "/token/{tokenId}"],
  ["get", "/me"],
  ["post", "/organization"],
  ["get", "/organization/all"],
  ["post", "/organization/{orgId}/member"],
  ["post", "/workspace"],
  ["get", "/workspace/all/{orgId}"],
  ["get", "/workspace/{id}"],
  ["patch", "/workspace/{id}"],
  ["post", "/workspace/{id}/collaborator"],
  ["delete", "/workspace/{id}/collaborator/{userId}"],
  ["post", "/project"],
  ["get", "/project/all/{workspaceId}"],
  ["get", "/project/{id}"],
  ["patch", "/project/{id}"],
  ["post", "/document"],
  ["get", "/document/all/{projectId}"],
  ["get", "/document/{documentId}"],
  ["patch", "/document/{documentId}"],
  ["delete", "/document/{documentId}"],
  ["post", "/document/{documentId}/restore"],
  ["post", "/document/{documentId}/publish"],
  ["delete", "/document/{documentId}/publish"],
  ["post", "/document/invite-user"],
  ["get", "/access/document/{documentId}"],
  ["get", "/notification/all"],
  ["post", "/notification/{id}/read"],
];

const METHODS = ["get", "post", "put", "patch", "delete"];

describe("discovery", () => {
  let doc: any;
  beforeAll(async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    doc = res.body;
  });

  it("GET /openapi.json needs no token and is OpenAPI 3.1.0 labelled current", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("current");
    expect(typeof doc.info.title).toBe("string");
  });

  it("declares the bearer security scheme and requires it by default", () => {
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.security).toEqual([{ bearer: [] }]);
  });

  it("documents every foundation operation", () => {
    for (const [method, path] of FOUNDATION_OPERATIONS) {
      expect(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
    }
  });

  const PUBLIC_OPERATIONS = ["GET /media/audio/{audioId}/content", "GET /health", "GET /openapi.json", "GET /docs"];

  it("every operation declares its path parameters, a 200 response, error responses and the bearer scheme", () => {
    let operations = 0;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        operations += 1;
        const where = `${method.toUpperCase()} ${path}`;
        const declared = (op.parameters ?? []).filter((p: any) => p.in === "path").map((p: any) => p.name);
        expect(declared.sort(), where).toEqual([...params].sort());
        const codes = Object.keys(op.responses);
        // A WebSocket route (GET /document/{id}/collab) succeeds with 101 Switching Protocols.
        expect(
          codes.some((c) => c.startsWith("2") || c === "101"),
          where,
        ).toBe(true);
        const errors = codes.filter((c) => /^[45]\d\d$/.test(c));
        expect(errors.length, where).toBeGreaterThan(0);
        if (PUBLIC_OPERATIONS.includes(where)) {
          // Discovery, and signed-URL media fetched by players that cannot send a bearer token.
          expect(op.security, where).toEqual([]);
          continue;
        }
        expect(codes, where).toContain("401");
        expect(op.security ?? doc.security, where).toEqual([{ bearer: [] }]);
      }
    }
    expect(operations).toBeGreaterThanOrEqual(FOUNDATION_OPERATIONS.length);
    for (const where of PUBLIC_OPERATIONS) {
      const [method, path] = where.split(" ");
      expect(doc.paths[path!]?.[method!.toLowerCase()], where).toBeDefined();
    }
  });

  it("error responses use the shared error body", () => {
    const me = doc.paths["/me"].get.responses;
    const schema = me["404"].content["application/json"].schema;
    const resolved = schema.$ref ? doc.components.schemas[schema.$ref.split("/").pop()] : schema;
    expect(resolved.required.sort()).toEqual(["error", "message"]);
    expect(Object.keys(resolved.properties).sort()).toEqual(["details", "error", "message"]);
  });

  it("E17 documents no error body but 401 (and the generic rate/internal ones); E10's 404 is the not-found shape", () => {
    const e17 = Object.keys(doc.paths["/workspace/all/{orgId}"].get.responses);
    expect(e17).not.toContain("400");
    expect(e17).not.toContain("404");
    expect(e17).toContain("401");
    const e10 = doc.paths["/document/{documentId}"].get.responses["404"].content["application/json"].schema;
    const resolved = e10.$ref ? doc.components.schemas[e10.$ref.split("/").pop()] : e10;
    expect(JSON.stringify(resolved)).toContain("isNotFound");
  });

  it("the admin route documents 401 and 409; conflict-raising routes document 409", () => {
    expect(Object.keys(doc.paths["/admin/users"].post.responses)).toEqual(
      expect.arrayContaining(["200", "400", "401", "409"]),
    );
    for (const [method, path] of [
      ["patch", "/document/{documentId}"],
      ["post", "/document/{documentId}/restore"],
      ["post", "/workspace/{id}/collaborator"],
      ["delete", "/workspace/{id}/collaborator/{userId}"],
      ["post", "/organization/{orgId}/member"],
    ] as const) {
      expect(Object.keys(doc.paths[path][method].responses), `${method} ${path}`).toContain("409");
    }
  });

  it("names the record schemas", () => {
    for (const name of ["Document", "Workspace", "Project", "User", "Error"])
      expect(doc.components.schemas[name], name).toBeDefined();
    const document = doc.components.schemas.Document;
    expect(Object.keys(document.properties).sort()).toEqual(DOCUMENT_KEYS);
  });
});

describe("tables", () => {
  beforeAll(async () => {
    await seedTenant();
  });

  describe("OpenAPI document", () => {
    it("lists every table and reference route with named schemas and error responses", async () => {
      const doc = await ok("GET", "/openapi.json");
      const want: [string, string][] = [
        ["/table", "post"],
        ["/table/{tableId}", "get"],
        ["/table/{tableId}", "patch"],
        ["/table/{tableId}", "delete"],
        ["/table/all/{projectId}/id", "get"],
        ["/table/{tableId}/column", "post"],
        ["/table/column/{columnId}", "patch"],
        ["/table/column/{columnId}", "delete"],
        ["/table/columns/{tableId}", "get"],
        ["/table/{tableId}/row", "post"],
        ["/table/{tableId}/rows", "post"],
        ["/table/{tableId}/rows", "get"],
        ["/table/row/{rowId}", "get"],
        ["/table/row/{rowId}", "delete"],
        ["/table/row/{rowId}/cell/{columnId}", "put"],
        ["/table/cell/{cellId}", "get"],
        ["/table/reference", "post"],
        ["/table/reference/{referenceId}", "get"],
        ["/table/reference/{referenceId}", "delete"],
        ["/document/{documentId}/table-references", "get"],
        ["/clause-reference", "post"],
        ["/clause-reference/{referenceId}", "get"],
        ["/clause-reference/{referenceId}", "delete"],
        ["/document/{documentId}/clause-references", "get"],
      ];
      for (const [path, method] of want) {
        const op = doc.paths[path]?.[method];
        expect(op, `${method} ${path}`).toBeDefined();
        expect(op.responses["401"], `${method} ${path}`).toBeDefined();
        expect(op.responses["404"], `${method} ${path}`).toBeDefined();
      }
      for (const name of [
        "Table",
        "Column",
        "Row",
        "Cell",
        "TableReference",
        "ClauseReference",
        "ColumnDataInput",
        "RowsPage",
      ]) {
        expect(doc.components.schemas[name], name).toBeDefined();
      }
    });
  });
});
