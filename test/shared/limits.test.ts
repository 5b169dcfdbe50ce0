import { describe, it } from "vitest";
import { call, expectError, registerUser } from "../support/harness";

describe("body limits", () => {
  it("refuses a JSON body over 10 MiB with 413 before reading it", async () => {
    const u = await registerUser();
    const name = "x".repeat(10 * 1024 * 1024 + 10);
    const res = await call("POST", "/organization", { token: u.token, body: { name } });
    expectError(res, 413, "PayloadTooLargeError");
  });
});
