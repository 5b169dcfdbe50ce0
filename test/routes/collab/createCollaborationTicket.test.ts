/** createCollaborationTicket: POST /document/{documentId}/collab/ticket (src/routes/collab/ticket.ts) — its happy path, errors and request-path checks. */
/**
 * The collaborative room (docs/api-guide.md › Automations, published portals, collaborative editing) with real Yjs clients over the pool's WebSockets: convergence, viewers refused,
 * access removal, eviction and reload, compaction, the state cap, malformed messages, tickets, and one document
 * everywhere (content GET, E5, PUT content and snapshot restore through the room).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ok, seedTenant, type Tenant } from "../../support/harness";
import { openSocket, para, Peer } from "../../support/collab-peer";
import { newDocIn } from "../../support/collabRoom";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

const newDoc = (name = "Collab doc") => newDocIn(t, name);

describe("collaborative room", () => {
  it("connects with a single-use ticket; a used, foreign or missing ticket is 401", async () => {
    const docId = await newDoc();
    const issued = await ok("POST", `/document/${docId}/collab/ticket`, { token: t.viewer.token });
    expect(issued.data.expiresAt - Date.now()).toBeLessThanOrEqual(60_000);
    expect(issued.data.expiresAt - Date.now()).toBeGreaterThan(50_000);
    // Concurrent redemptions: exactly one connects.
    const [r1, r2] = await Promise.all([
      openSocket(docId, { ticket: issued.data.ticket }),
      openSocket(docId, { ticket: issued.data.ticket }),
    ]);
    expect([r1.status, r2.status].sort()).toEqual([101, 401]);
    const sock = new Peer((r1.webSocket ?? r2.webSocket)!);
    await sock.whenSynced();
    // The ticket's user is a viewer: read-only.
    sock.write([para("v", "nope")]);
    await sock.until(() => sock.denied.length > 0, "the viewer's refusal");
    sock.close();
    const reused = await openSocket(docId, { ticket: issued.data.ticket });
    expect(reused.status).toBe(401);
    const other = await newDoc("Other");
    const foreign = await ok("POST", `/document/${other}/collab/ticket`, { token: t.owner.token });
    expect((await openSocket(docId, { ticket: foreign.data.ticket })).status).toBe(401);
    expect((await openSocket(docId, {})).status).toBe(401);
  });
});
