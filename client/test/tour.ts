/**
 * The README's tour driven through the typed client against a running service (scripts/service-test.mjs starts
 * one the way `npm start` does), plus the client's own retry / idempotency / error behaviour against a scripted fetch.
 */
import assert from "node:assert/strict";
import {
  ApiError,
  and,
  createApiClient,
  desc,
  filterParam,
  retryAfterMs,
  sortParam,
  unwrap,
  where,
} from "../src/index.ts";

export async function tour(baseUrl: string, adminToken: string): Promise<string[]> {
  const steps: string[] = [];
  const step = (s: string) => steps.push(s);
  const admin = createApiClient({ baseUrl, token: adminToken });
  const email = `client-${Date.now().toString(36)}@example.com`;
  const registered = await unwrap(admin.POST("/admin/users", { body: { email, name: "Client Tour" } }));
  step("createUser");
  const api = createApiClient({ baseUrl, token: registered.data.token.token });

  const me = await unwrap(api.GET("/me"));
  assert.equal(me.data.email, email);
  step("getMe");

  const orgs = await unwrap(api.GET("/organization/all"));
  const orgId = orgs.data[0]!._id;
  assert.equal(orgId, registered.data.organization._id);
  const org = await unwrap(api.POST("/organization", { body: { name: "Second org" } }));
  assert.equal(org.data.name, "Second org");
  step("organizations");

  const workspace = await unwrap(
    api.POST("/workspace", { body: { organizationId: org.data._id, name: "Tour workspace" } }),
  );
  const workspaces = await unwrap(api.GET("/workspace/all/{orgId}", { params: { path: { orgId: org.data._id } } }));
  assert.ok(workspaces.data.some((w) => w._id === workspace.data._id));
  const readWs = await unwrap(api.GET("/workspace/{id}", { params: { path: { id: workspace.data._id } } }));
  assert.equal(readWs.data.name, "Tour workspace");
  step("workspaces");

  const project = await unwrap(api.POST("/project", { body: { workspaceId: workspace.data._id, name: "Contracts" } }));
  const projects = await unwrap(
    api.GET("/project/all/{workspaceId}", { params: { path: { workspaceId: workspace.data._id } } }),
  );
  assert.deepEqual(
    projects.data.map((p) => p._id),
    [project.data._id],
  );
  step("projects");

  const folder = await unwrap(
    api.POST("/document", { body: { projectId: project.data._id, name: "Drafts", type: "FOLDER" } }),
  );
  const doc = await unwrap(
    api.POST("/document", {
      body: { projectId: project.data._id, parentId: folder.data._id, name: "Lease", type: "DOCUMENT" },
    }),
  );
  const tree = await unwrap(
    api.GET("/document/all/{projectId}", { params: { path: { projectId: project.data._id } } }),
  );
  assert.deepEqual(tree.data.map((d) => d._id).sort(), [folder.data._id, doc.data._id].sort());
  const readDoc = await unwrap(api.GET("/document/{documentId}", { params: { path: { documentId: doc.data._id } } }));
  assert.equal(readDoc.data.name, "Lease");
  assert.equal(readDoc.data.parentId, folder.data._id);
  step("documents");

  const table = await unwrap(api.POST("/table", { body: { projectId: project.data._id, name: "Prices" } }));
  const nameCol = table.data.columns[0]!._id;
  const price = await unwrap(
    api.POST("/table/{tableId}/column", {
      params: { path: { tableId: table.data._id } },
      body: {
        name: "Price",
        data: { type: "number", number: { format: "currency", decimalPlaces: 2, aggregation: "sum" } },
      },
    }),
  );
  const one = await unwrap(
    api.POST("/table/{tableId}/row", {
      params: { path: { tableId: table.data._id } },
      body: { cells: { [nameCol]: "Apples", [price.data._id]: 3 } },
    }),
  );
  await unwrap(
    api.POST("/table/{tableId}/rows", {
      params: { path: { tableId: table.data._id } },
      body: {
        rows: [
          { cells: { [nameCol]: "Pears", [price.data._id]: 4 } },
          { cells: { [nameCol]: "Plums", [price.data._id]: 5 } },
        ],
      },
    }),
  );
  const rows = await unwrap(
    api.GET("/table/{tableId}/rows", { params: { path: { tableId: table.data._id }, query: { limit: 100 } } }),
  );
  assert.equal(rows.data.length, 3);
  const row = await unwrap(api.GET("/table/row/{rowId}", { params: { path: { rowId: one.data.row._id } } }));
  assert.equal(row.data._id, one.data.row._id);
  const columns = await unwrap(api.GET("/table/columns/{tableId}", { params: { path: { tableId: table.data._id } } }));
  assert.deepEqual(
    columns.data.map((c) => c.name),
    ["Name", "Price"],
  );
  step("tables, columns and rows");

  // A filtered, sorted query: the filter builders give the tree, as a JSON body or (filterParam) a query string.
  const priceId = price.data._id;
  const dear = await unwrap(
    api.POST("/table/{tableId}/query", {
      params: { path: { tableId: table.data._id } },
      body: { filter: and(where.number(priceId).gte(4)), sort: [desc(priceId)], limit: 10 },
    }),
  );
  assert.deepEqual(
    dear.data.map((r) => r.cells[nameCol]),
    ["Plums", "Pears"],
  );
  const viaGet = await unwrap(
    api.GET("/table/{tableId}/rows", {
      params: {
        path: { tableId: table.data._id },
        query: { filter: filterParam(where.text(nameCol).startsWith("P")), sort: sortParam([desc(priceId)]) },
      },
    }),
  );
  assert.equal(viaGet.data.length, 2);
  step("queryRows");

  // A retried create with the same Idempotency-Key answers the first result and creates nothing twice.
  const key = crypto.randomUUID();
  const first = await unwrap(
    api.POST("/project", {
      body: { workspaceId: workspace.data._id, name: "Once" },
      headers: { "idempotency-key": key },
    }),
  );
  const again = await unwrap(
    api.POST("/project", {
      body: { workspaceId: workspace.data._id, name: "Once" },
      headers: { "idempotency-key": key },
    }),
  );
  assert.equal(again.data._id, first.data._id);
  step("Idempotency-Key replay");

  // Errors arrive as ApiError with the service's body.
  await assert.rejects(
    api.GET("/project/{id}", { params: { path: { id: "01JD5Y7X9Q0000000000000000" } } }),
    (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.status, 404);
      assert.equal(err.error, "NotFoundError");
      return true;
    },
  );
  await assert.rejects(
    api.POST("/project", { body: { workspaceId: workspace.data._id, name: "" } }),
    (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.status, 400);
      assert.equal(err.error, "ValidationError");
      assert.ok(err.details.length > 0);
      return true;
    },
  );
  await assert.rejects(
    createApiClient({ baseUrl, token: "cws_wrong" }).GET("/me"),
    (err: unknown) => err instanceof ApiError && err.status === 401,
  );
  step("errors as ApiError");
  return steps;
}

/** Retry and idempotency behaviour, against a scripted fetch (no 300 requests needed to provoke a real 429). */
export async function retrySemantics(): Promise<string[]> {
  const seen: { method: string; key: string | null; auth: string | null; body: string }[] = [];
  const answers = [429, 429, 200];
  const slept: number[] = [];
  const api = createApiClient({
    baseUrl: "http://service.test",
    token: "cws_t",
    sleep: async (ms) => void slept.push(ms),
    fetch: async (req) => {
      seen.push({
        method: req.method,
        key: req.headers.get("idempotency-key"),
        auth: req.headers.get("authorization"),
        body: await req.text(),
      });
      const status = answers.shift() ?? 200;
      return status === 429
        ? new Response(JSON.stringify({ error: "RateLimitedError", message: "slow down" }), {
            status,
            headers: { "content-type": "application/json", "retry-after": "2" },
          })
        : new Response(JSON.stringify({ data: { _id: "p1", name: "x" } }), {
            status,
            headers: { "content-type": "application/json" },
          });
    },
  });
  const res = await unwrap(api.POST("/project", { body: { workspaceId: "w", name: "x" } }));
  assert.equal((res.data as { _id: string })._id, "p1");
  assert.equal(seen.length, 3);
  assert.deepEqual(slept, [2000, 2000]);
  assert.ok(seen[0]!.key && /^[0-9a-f-]{36}$/.test(seen[0]!.key));
  assert.ok(seen.every((s) => s.key === seen[0]!.key && s.auth === "Bearer cws_t" && s.body === seen[0]!.body));

  // Bounded: after maxRetries the 429 is thrown; GETs carry no Idempotency-Key.
  const limited = createApiClient({
    baseUrl: "http://service.test",
    maxRetries: 2,
    sleep: async () => {},
    fetch: async (req) => {
      assert.equal(req.headers.get("idempotency-key"), null);
      return new Response(JSON.stringify({ error: "RateLimitedError", message: "slow down" }), {
        status: 429,
        headers: { "content-type": "application/json", "retry-after": "1" },
      });
    },
  });
  await assert.rejects(
    limited.GET("/me"),
    (err: unknown) => err instanceof ApiError && err.status === 429 && err.error === "RateLimitedError",
  );

  // A wait longer than allowed is not slept through.
  let calls = 0;
  const patient = createApiClient({
    baseUrl: "http://service.test",
    maxRetryDelayMs: 5000,
    sleep: async () => assert.fail("must not sleep"),
    fetch: async () => (calls++, new Response("{}", { status: 429, headers: { "retry-after": "60" } })),
  });
  await assert.rejects(patient.GET("/me"), (err: unknown) => err instanceof ApiError && err.status === 429);
  assert.equal(calls, 1);

  assert.equal(retryAfterMs("3"), 3000);
  const dated = retryAfterMs(new Date(Date.now() + 10_000).toUTCString());
  assert.ok(dated !== undefined && dated > 8000 && dated <= 10_000);
  assert.equal(retryAfterMs("soon"), undefined);
  return ["retry after Retry-After with one Idempotency-Key", "bounded retries", "bounded wait"];
}
