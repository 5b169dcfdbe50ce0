/** health: GET /health (src/routes/discovery/health.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call } from "../../support/harness";

describe("discovery", () => {
  beforeAll(async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
  });

  it("GET /health answers without a token", async () => {
    const res = await call("GET", "/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok", service: "workspace-edge" });
  });
});
