import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser, type RegisteredUser } from "../support/harness";
import { notFoundShape } from "../support/shapes";

/** docs/api-guide.md › Conventions; Errors: the error model every route shares. */
describe("error model", () => {
  let u: RegisteredUser;
  beforeAll(async () => {
    u = await registerUser("Errors");
  });

  it("an unknown path is 404 NotFoundError, with or without a token", async () => {
    for (const token of [u.token, null]) {
      const res = await call("GET", "/no/such/route", { token });
      expectError(res, 404, "NotFoundError");
      expect(Object.keys(res.body).sort()).toEqual(["error", "message"]);
    }
    expectError(await call("POST", "/documents", { token: u.token, body: {} }), 404, "NotFoundError");
  });

  it("a known path with the wrong method is 405 with the same body shape and an Allow header", async () => {
    const res = await call("PUT", "/me", { token: u.token });
    expectError(res, 405, "MethodNotAllowedError");
    expect(Object.keys(res.body).sort()).toEqual(["error", "message"]);
    expect(res.headers.get("allow")).toContain("GET");

    const del = await call("DELETE", "/organization/all", { token: u.token });
    expectError(del, 405, "MethodNotAllowedError");

    const put = await call("PUT", `/workspace/${u.workspaceId}`, { token: u.token, body: { name: "x" } });
    expectError(put, 405, "MethodNotAllowedError");
    expect(put.headers.get("allow")!.split(/,\s*/).sort()).toEqual(["GET", "PATCH"]);
  });

  it("a trailing slash is an unknown path (404), not a 405 whose Allow names the method used", async () => {
    for (const [method, path] of [
      ["GET", "/me/"],
      ["GET", "/organization/all/"],
      ["PATCH", `/workspace/${u.workspaceId}/`],
    ] as const) {
      const res = await call(method, path, { token: u.token, body: method === "PATCH" ? {} : undefined });
      expectError(res, 404, "NotFoundError");
    }
  });

  it("authentication still comes first on a known path (401 before 405)", async () => {
    expectError(await call("PUT", "/me"), 401, "UnauthorizedError");
  });

  it("a wrong method on a public path (discovery, the reader site) is 405 without a token, not a demand for one", async () => {
    for (const [method, path, allow] of [
      ["POST", "/openapi.json", "GET"],
      ["DELETE", "/docs", "GET"],
      ["POST", "/health", "GET"],
      ["PUT", "/site/some-portal", "GET"],
      ["DELETE", "/site/some-portal/some-document", "GET"],
      ["PUT", "/site/some-portal/login", "POST"],
    ] as const) {
      const res = await call(method, path);
      expectError(res, 405, "MethodNotAllowedError");
      expect(Object.keys(res.body).sort(), `${method} ${path}`).toEqual(["error", "message"]);
      expect(res.headers.get("allow"), `${method} ${path}`).toContain(allow);
    }
  });

  it("malformed JSON is 400 ValidationError", async () => {
    const res = await call("POST", "/organization", {
      token: u.token,
      raw: '{"name": "x"',
      headers: { "content-type": "application/json" },
    });
    expectError(res, 400, "ValidationError");
    const empty = await call("POST", "/organization", {
      token: u.token,
      raw: "",
      headers: { "content-type": "application/json" },
    });
    expectError(empty, 400, "ValidationError");
  });

  it("a JSON body that is not an object is 400", async () => {
    for (const body of [[], "name", 42, null]) {
      expectError(await call("POST", "/organization", { token: u.token, body }), 400, "ValidationError");
    }
  });

  it("a JSON body sent with another content type is 415, not silently ignored", async () => {
    const res = await call("PATCH", `/workspace/${u.workspaceId}`, {
      token: u.token,
      raw: JSON.stringify({ name: "Renamed" }),
      headers: { "content-type": "text/plain" },
    });
    expectError(res, 415, "UnsupportedMediaTypeError");
    const ws = await ok("GET", `/workspace/${u.workspaceId}`, { token: u.token });
    expect(ws.data.name).not.toBe("Renamed");
    expectError(
      await call("POST", "/organization", {
        token: u.token,
        raw: JSON.stringify({ name: "Org" }),
        headers: { "content-type": "application/x-www-form-urlencoded" },
      }),
      415,
      "UnsupportedMediaTypeError",
    );
    // application/json with parameters and +json media types are JSON.
    await ok("POST", "/organization", {
      token: u.token,
      raw: JSON.stringify({ name: "Org" }),
      headers: { "content-type": "application/json; charset=utf-8" },
    });
  });

  it("a 415 names the media type the operation accepts, and what came instead", async () => {
    // Bytes without any Content-Type (a Uint8Array body gets none), and with a wrong one.
    const bare = await call("POST", "/organization", {
      token: u.token,
      raw: new TextEncoder().encode(JSON.stringify({ name: "Org" })),
    });
    expectError(bare, 415, "UnsupportedMediaTypeError");
    expect(bare.body.message).toContain("application/json");
    expect(bare.body.message).toMatch(/no Content-Type/);
    const text = await call("POST", "/organization", {
      token: u.token,
      raw: JSON.stringify({ name: "Org" }),
      headers: { "content-type": "text/plain" },
    });
    expectError(text, 415, "UnsupportedMediaTypeError");
    expect(text.body.message).toContain("application/json");
    expect(text.body.message).toContain("text/plain");
  });

  it("a schema failure on a well-formed body or parameter names its location and the field path", async () => {
    const body = await call("POST", "/project", { token: u.token, body: { workspaceId: u.workspaceId } });
    expectError(body, 400, "ValidationError");
    expect(body.body.message).toMatch(/^Invalid request body: name: /);
    expect(body.body.details.map((d: any) => d.path)).toEqual(["name"]);
    const query = await call("GET", "/table/some-table/rows", { token: u.token, query: { limit: "many" } });
    expectError(query, 400, "ValidationError");
    expect(query.body.message).toMatch(/^Invalid query parameters: limit: /);
  });

  it("an unknown body member is 400 with a detail naming its path", async () => {
    const res = await call("POST", "/organization", { token: u.token, body: { name: "x", color: "red", size: 1 } });
    expectError(res, 400, "ValidationError");
    expect(res.body.details.map((d: any) => d.path).sort()).toEqual(["color", "size"]);
    for (const d of res.body.details) expect(typeof d.message).toBe("string");
    // Inside a nested object, the path carries the parent.
    const nested = await call("POST", "/project", {
      token: u.token,
      body: { workspaceId: u.workspaceId, name: "p", icon: { name: "star", color: "red", size: 3 } },
    });
    expectError(nested, 400, "ValidationError");
    expect(nested.body.details.map((d: any) => d.path)).toEqual(["icon.size"]);
  });

  it("each invalid member gets its own detail", async () => {
    const res = await call("POST", "/workspace", {
      token: u.token,
      body: { organizationId: "bad id", name: "", isShared: "yes" },
    });
    expectError(res, 400, "ValidationError");
    expect(res.body.details.map((d: any) => d.path).sort()).toEqual(["isShared", "name", "organizationId"]);
  });

  it("a path id outside ^[A-Za-z0-9_-]{1,64}$ is 400", async () => {
    for (const id of ["has%20space", "a".repeat(65), "d%C3%A9j%C3%A0", "semi%3Bcolon", "dot.ted"]) {
      const res = await call("GET", `/document/${id}`, { token: u.token });
      expectError(res, 400, "ValidationError");
      expect(res.body.details[0].path).toBe("documentId");
      expectError(await call("GET", `/project/${id}`, { token: u.token }), 400, "ValidationError");
      expectError(await call("PATCH", `/workspace/${id}`, { token: u.token, body: {} }), 400, "ValidationError");
    }
    // 64 characters is a valid id: the document is simply not there.
    const longest = "a".repeat(64);
    const res = await call("GET", `/document/${longest}`, { token: u.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(notFoundShape(longest));
  });

  it("validation comes before existence (400 before 404)", async () => {
    const res = await call("PATCH", "/project/does-not-exist", { token: u.token, body: { name: 5 } });
    expectError(res, 400, "ValidationError");
    expectError(
      await call("PATCH", "/project/does-not-exist", { token: u.token, body: { name: "ok" } }),
      404,
      "NotFoundError",
    );
  });

  it("messages carry no stack trace or SQL", async () => {
    const probes = [
      await call("POST", "/document", {
        token: u.token,
        body: { projectId: "x'; DROP TABLE documents; --", name: "x", type: "DOCUMENT" },
      }),
      await call("POST", "/document", { token: u.token, body: { projectId: "nope", name: "x", type: "DOCUMENT" } }),
      await call("GET", "/workspace/all/%27%20OR%201%3D1%20--", { token: u.token }),
    ];
    for (const res of probes) {
      expect(res.status).toBeLessThan(500);
      expect(JSON.stringify(res.body)).not.toMatch(/\bat .+\.(ts|js):\d+|SQLITE|select |insert |D1_ERROR/i);
    }
  });
});
