import { describe, expect, it } from "vitest";
import { call, registerUser } from "../support/harness";

describe("smoke", () => {
  it("health answers without a token", async () => {
    const res = await call("GET", "/health");
    expect(res.status).toBe(200);
  });
  it("registers a user and reads /me", async () => {
    const u = await registerUser("Ann");
    const me = await call("GET", "/me", { token: u.token });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ _id: u.id, name: "Ann" });
  });
});
