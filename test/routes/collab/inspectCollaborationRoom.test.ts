/** inspectCollaborationRoom: POST /admin/collab/{documentId} (src/routes/collab/diagnostics.ts) — its happy path, errors and request-path checks. */
/**
 * The collaborative room (docs/api-guide.md › Automations, published portals, collaborative editing) with real Yjs clients over the pool's WebSockets: convergence, viewers refused,
 * access removal, eviction and reload, compaction, the state cap, malformed messages, tickets, and one document
 * everywhere (content GET, E5, PUT content and snapshot restore through the room).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, ok, seedTenant, type Tenant } from "../../support/harness";
import { connect, para } from "../../support/collab-peer";
import { blocksOf, newDocIn, until } from "../../support/collabRoom";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

const newDoc = (name = "Collab doc") => newDocIn(t, name);

describe("collaborative room", () => {
  it("the operator route (POST /admin/collab/{id}) lowers the interval, compacts and reports a reload that matches", async () => {
    const docId = await newDoc();
    const a = await connect(docId, { token: t.owner.token });
    a.write([para("p1", "start:")]);
    for (let i = 0; i < 20; i++) a.text(0).insert(a.text(0).length, "x");
    await until(
      () => blocksOf(docId),
      (blocks) => JSON.stringify(blocks).includes("x".repeat(20)),
      "the keystrokes to arrive",
    );
    const before = await ok("POST", `/admin/collab/${docId}`, { token: ADMIN_TOKEN, body: { compactEvery: 1000 } });
    expect(before.data.stats).toMatchObject({ documentId: docId, connections: 1 });
    expect(before.data.stats.updateCount).toBeGreaterThanOrEqual(21);
    expect(before.data.reloadMatches).toBe(true);
    const after = await ok("POST", `/admin/collab/${docId}`, {
      token: ADMIN_TOKEN,
      body: { compact: true, compactEvery: null },
    });
    expect(after.data.stats).toMatchObject({ updateCount: 0, stateChunks: 1 });
    expect(after.data.stats.storedBytes).toBe(after.data.stats.stateBytes);
    expect(after.data.reloadMatches).toBe(true);
    expect(typeof after.data.reloadMs).toBe("number");
    a.close();
  });
});
