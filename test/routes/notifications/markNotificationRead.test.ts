/** markNotificationRead: POST /notification/{id}/read (src/routes/notifications/markRead.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import {
  call,
  expectError,
  ok,
  registerUser,
  seedTenant,
  type RegisteredUser,
  type Tenant,
} from "../../support/harness";

describe("markNotificationRead", () => {
  let t: Tenant;
  let guest: RegisteredUser;
  let note: any;
  beforeAll(async () => {
    [t, guest] = await Promise.all([seedTenant(), registerUser("Reader")]);
    await ok("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: guest.email, documentId: t.docId },
    });
    note = (await ok("GET", "/notification/all", { token: guest.token })).data[0];
  });

  it("marks the caller's notification read once: a second call keeps the first readAt", async () => {
    expect(note).toMatchObject({ isRead: false, readAt: null });
    const read = await ok("POST", `/notification/${note._id}/read`, { token: guest.token });
    expect(read.data).toEqual({ ...note, isRead: true, readAt: expect.any(Number), updatedAt: read.data.readAt });
    const again = await ok("POST", `/notification/${note._id}/read`, { token: guest.token });
    expect(again.data).toEqual(read.data);
    expect((await ok("GET", "/notification/all", { token: guest.token })).data).toEqual([read.data]);
  });

  it("is 404 for another user's notification and for a missing one, 401 without a token", async () => {
    expectError(await call("POST", `/notification/${note._id}/read`, { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("POST", "/notification/no-such-note/read", { token: guest.token }), 404, "NotFoundError");
    expect((await call("POST", `/notification/${note._id}/read`)).status).toBe(401);
  });
});
