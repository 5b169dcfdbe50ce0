/**
 * Presence (awareness) in the collaborative room (docs/api-guide.md, "Collaborative editing"): each connection owns
 * the client ids it introduced (at most 4, each state at most 8 KB), an entry for another connection's client is
 * dropped, a refused message leaves nothing behind, and a connection's entries leave with it.
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as encoding from "lib0/encoding";
import * as decoding from "lib0/decoding";
import { ok, seedTenant, type Tenant } from "../../support/harness";
import { connect, type Peer } from "../../support/collab-peer";
import { MAX_AWARENESS_CLIENTS, MAX_AWARENESS_STATE_BYTES } from "../../../src/durable/room/protocol";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

async function newDoc() {
  const doc = await ok("POST", "/document", {
    token: t.owner.token,
    body: { projectId: t.projectId, parentId: t.folderId, name: "Presence", type: "DOCUMENT" },
  });
  return doc.data._id as string;
}

type Entry = { id: number; clock: number; state: unknown };

/** A y-protocols awareness message; `truncate` cuts that many bytes off the end of the inner update. */
function awarenessMessage(entries: Entry[], truncate = 0): Uint8Array {
  const inner = encoding.createEncoder();
  encoding.writeVarUint(inner, entries.length);
  for (const { id, clock, state } of entries) {
    encoding.writeVarUint(inner, id);
    encoding.writeVarUint(inner, clock);
    encoding.writeVarString(inner, JSON.stringify(state));
  }
  const bytes = encoding.toUint8Array(inner);
  const e = encoding.createEncoder();
  encoding.writeVarUint(e, 1);
  encoding.writeVarUint8Array(e, bytes.subarray(0, bytes.length - truncate));
  return encoding.toUint8Array(e);
}

/** Every entry a peer has been sent, the latest per client id (null state: the client left). */
function presenceSeen(peer: Peer): Map<number, { clock: number; state: unknown }> {
  const seen = new Map<number, { clock: number; state: unknown }>();
  for (const update of peer.awareness) {
    const d = decoding.createDecoder(update);
    const n = decoding.readVarUint(d);
    for (let i = 0; i < n; i++) {
      const id = decoding.readVarUint(d);
      const clock = decoding.readVarUint(d);
      const state = JSON.parse(decoding.readVarString(d)) as unknown;
      seen.set(id, { clock, state });
    }
  }
  return seen;
}

/** The presence a new joiner is greeted with (ids with a live state). */
async function greeting(docId: string) {
  const joiner = await connect(docId, { token: t.editor.token });
  const live = [...presenceSeen(joiner)].filter(([, v]) => v.state !== null);
  const bytes = joiner.awareness.reduce((n, u) => n + u.byteLength, 0);
  joiner.close();
  return {
    ids: live.map(([id]) => id).sort((a, b) => a - b),
    states: new Map(live.map(([id, v]) => [id, v.state])),
    bytes,
  };
}

describe("awareness", () => {
  it("a message refused part-way (second entry truncated) leaves nothing of its first entry behind", async () => {
    const docId = await newDoc();
    const owner = await connect(docId, { token: t.owner.token });
    owner.send(awarenessMessage([{ id: 1001, clock: 1, state: { user: { name: "Owner" } } }]));
    const viewer = await connect(docId, { token: t.viewer.token });
    await viewer.until(() => presenceSeen(viewer).has(1001), "the owner's presence");
    // As reported: about 900 KB of state in the first entry, the second truncated; and smaller ones within the limits.
    for (let i = 0; i < 4; i++) {
      const planter = await connect(docId, { token: t.viewer.token });
      const pad = i === 0 ? 900_000 : 4000;
      planter.send(
        awarenessMessage(
          [
            { id: 5000 + i, clock: 1, state: { pad: "x".repeat(pad) } },
            { id: 6000 + i, clock: 1, state: { pad: "y" } },
          ],
          3,
        ),
      );
      await planter.until(() => planter.closed !== null, "the planter to be closed");
      expect(planter.closed!.code).toBe(1003);
    }
    // Neither the viewer watching nor a new joiner is sent any planted entry.
    expect([...presenceSeen(viewer).keys()].filter((id) => id >= 5000)).toEqual([]);
    const g = await greeting(docId);
    expect(g.ids).toEqual([1001]);
    expect(g.bytes).toBeLessThan(200);
    owner.close();
    viewer.close();
  });

  it("refuses a state over 8 KB without applying any entry of the message, and keeps at most 4 ids per connection", async () => {
    const docId = await newDoc();
    const big = await connect(docId, { token: t.viewer.token });
    big.send(
      awarenessMessage([
        { id: 7001, clock: 1, state: { name: "fine" } },
        { id: 7002, clock: 1, state: { pad: "z".repeat(MAX_AWARENESS_STATE_BYTES) } },
      ]),
    );
    await big.until(() => big.closed !== null, "the oversized presence to be refused");
    expect(big.closed!.code).toBe(1009);
    expect((await greeting(docId)).ids).toEqual([]);

    const many = await connect(docId, { token: t.viewer.token });
    const ids = Array.from({ length: 20 }, (_, i) => 8000 + i);
    many.send(
      awarenessMessage(
        ids.map((id) => ({ id, clock: 1, state: { pad: "w".repeat(MAX_AWARENESS_STATE_BYTES - 100) } })),
      ),
    );
    // A second message cannot add more ids either.
    many.send(awarenessMessage([{ id: 9000, clock: 1, state: { name: "extra" } }]));
    many.send(awarenessMessage([{ id: 8000, clock: 2, state: { name: "updated" } }]));
    let g = await greeting(docId);
    for (let i = 0; i < 20 && !(g.states.get(8000) as { name?: string } | undefined)?.name; i++)
      g = await greeting(docId);
    expect(g.ids).toEqual(ids.slice(0, MAX_AWARENESS_CLIENTS));
    expect(g.states.get(8000)).toEqual({ name: "updated" });
    expect(g.bytes).toBeLessThan(MAX_AWARENESS_CLIENTS * MAX_AWARENESS_STATE_BYTES + 1024);
    many.close();
  });

  it("drops an entry for another connection's client: a viewer cannot overwrite the owner's cursor", async () => {
    const docId = await newDoc();
    const owner = await connect(docId, { token: t.owner.token });
    owner.send(awarenessMessage([{ id: 4242, clock: 3, state: { user: { name: "Owner" } } }]));
    const viewer = await connect(docId, { token: t.viewer.token });
    await viewer.until(() => presenceSeen(viewer).has(4242), "the owner's presence");
    viewer.send(
      awarenessMessage([
        { id: 4242, clock: 99, state: { user: { name: "Owner (forged)" } } },
        { id: 4343, clock: 1, state: { user: { name: "Viewer" } } },
      ]),
    );
    await owner.until(() => presenceSeen(owner).has(4343), "the viewer's own presence");
    expect(presenceSeen(owner).get(4242)).toBeUndefined();
    const g = await greeting(docId);
    expect(g.ids).toEqual([4242, 4343]);
    expect(g.states.get(4242)).toEqual({ user: { name: "Owner" } });
    // Removing another's entry (state null) is dropped too.
    viewer.send(awarenessMessage([{ id: 4242, clock: 100, state: null }]));
    owner.send(awarenessMessage([{ id: 4242, clock: 4, state: { user: { name: "Owner", cursor: 1 } } }]));
    await viewer.until(() => (presenceSeen(viewer).get(4242)?.clock ?? 0) === 4, "the owner's own update");
    expect((await greeting(docId)).states.get(4242)).toEqual({ user: { name: "Owner", cursor: 1 } });
    owner.close();
    viewer.close();
  });

  it("removes a connection's entries when it closes, and then its ids are free again", async () => {
    const docId = await newDoc();
    const watcher = await connect(docId, { token: t.owner.token });
    const a = await connect(docId, { token: t.viewer.token });
    a.send(awarenessMessage([{ id: 3131, clock: 1, state: { name: "A" } }]));
    await watcher.until(() => presenceSeen(watcher).get(3131)?.state !== undefined, "A's presence");
    a.close();
    await watcher.until(() => presenceSeen(watcher).get(3131)?.state === null, "A's presence to leave");
    expect((await greeting(docId)).ids).toEqual([]);
    const b = await connect(docId, { token: t.viewer.token });
    b.send(awarenessMessage([{ id: 3131, clock: 1, state: { name: "B" } }]));
    await watcher.until(
      () => (presenceSeen(watcher).get(3131)?.state as { name?: string } | null)?.name === "B",
      "B's presence under the freed id",
    );
    watcher.close();
    b.close();
  });
});
