// npm run bench -- collab: the collaborative room (docs/api-guide.md › Automations, published portals, collaborative editing) under a local wrangler dev, with real Yjs clients
// over WebSockets (`ws` + yjs + y-protocols' wire format, what y-websocket's provider sends).
//   1. fan-out: one editor's update to 50 other connected editors, p50/p99 receipt latency (target p99 ≤ 100 ms)
//   2. throughput: updates per second one room integrates, stores and broadcasts with 10 writers at once
//   3. storage: stored bytes and reload time after 10 000 small updates, before and after compaction (target ≤ 200 ms)
import WebSocket from "ws";
import * as Y from "yjs";
import * as encoding from "lib0/encoding";
import * as decoding from "lib0/decoding";
import * as syncProtocol from "y-protocols/sync";
import { ADMIN_TOKEN, printTable, seedUser, startApi } from "./lib.mjs";

const FANOUT_PEERS = 50;
const FANOUT_UPDATES = 200;
const FANOUT_GAP_MS = 20;
const WRITERS = 10;
const UPDATES_PER_WRITER = 200;
const SMALL_UPDATES = 10_000;

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** A Yjs peer: syncs on open, sends its document's updates, counts and timestamps the updates it receives. */
class Peer {
  constructor(url, token) {
    this.doc = new Y.Doc();
    /** When each character of the shared text (one per update) first reached this peer. */
    this.received = [];
    this.ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
    this.ws.binaryType = "nodebuffer";
    this.synced = new Promise((resolve, reject) => {
      this.ws.on("error", reject);
      this.ws.on("open", () => {
        const e = encoding.createEncoder();
        encoding.writeVarUint(e, 0);
        syncProtocol.writeSyncStep1(e, this.doc);
        this.ws.send(encoding.toUint8Array(e));
      });
      this.ws.on("message", (data) => {
        const at = performance.now();
        const d = decoding.createDecoder(new Uint8Array(data));
        if (decoding.readVarUint(d) !== 0) return;
        const e = encoding.createEncoder();
        encoding.writeVarUint(e, 0);
        const sub = syncProtocol.readSyncMessage(d, e, this.doc, this);
        if (encoding.length(e) > 1) this.ws.send(encoding.toUint8Array(e));
        if (sub === syncProtocol.messageYjsSyncStep2) resolve();
        if (sub !== syncProtocol.messageYjsUpdate) return;
        // Updates may arrive merged (the room sends one message per batch): receipt is read off the text.
        for (let k = this.received.length; k < this.text.length; k++) this.received.push(at);
        void sub;
      });
    });
    this.doc.on("update", (update, origin) => {
      if (origin === this) return;
      const e = encoding.createEncoder();
      encoding.writeVarUint(e, 0);
      syncProtocol.writeUpdate(e, update);
      this.ws.send(encoding.toUint8Array(e));
    });
  }
  get text() {
    return this.doc.getText("bench");
  }
  type(chars = "x") {
    this.text.insert(this.text.length, chars);
  }
  close() {
    this.ws.close();
  }
}

async function connectAll(url, token, n) {
  const peers = [];
  for (let i = 0; i < n; i += 10) {
    const batch = Array.from({ length: Math.min(10, n - i) }, () => new Peer(url, token));
    await Promise.all(batch.map((p) => p.synced));
    peers.push(...batch);
  }
  return peers;
}

function waitFor(check, ms, what) {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + ms;
    const tick = () => {
      if (check()) return resolve();
      if (Date.now() > deadline) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 5);
    };
    tick();
  });
}

export default async function () {
  const api = await startApi();
  try {
    const u = await seedUser(api, "Collab");
    const newDoc = async (name) =>
      (
        await api.call("POST", "/document", {
          token: u.token,
          body: { projectId: u.projectId, name, type: "DOCUMENT" },
        })
      ).data._id;
    const wsUrl = (id) => `${api.url.replace(/^http/, "ws")}/document/${id}/collab`;
    const inspect = (id, body = {}) =>
      api.call("POST", `/admin/collab/${id}`, { token: ADMIN_TOKEN, body }).then((r) => r.data);

    // 1. Fan-out latency.
    const fanDoc = await newDoc("Fan-out");
    const writer = new Peer(wsUrl(fanDoc), u.token);
    await writer.synced;
    const listeners = await connectAll(wsUrl(fanDoc), u.token, FANOUT_PEERS);
    const sentAt = [];
    for (let i = 0; i < FANOUT_UPDATES; i++) {
      sentAt.push(performance.now());
      writer.type("f");
      await new Promise((r) => setTimeout(r, FANOUT_GAP_MS));
    }
    await waitFor(
      () => listeners.every((l) => l.received.length >= FANOUT_UPDATES),
      60_000,
      "every listener to receive every update",
    );
    const latencies = listeners.flatMap((l) => l.received.slice(0, FANOUT_UPDATES).map((at, i) => at - sentAt[i]));
    const converged = listeners.every((l) => l.text.toString() === writer.text.toString());
    for (const p of [writer, ...listeners]) p.close();

    // 2. Throughput with 10 writers (and one observer counting what the room broadcast).
    const tpDoc = await newDoc("Throughput");
    const writers = await connectAll(wsUrl(tpDoc), u.token, WRITERS);
    const observer = new Peer(wsUrl(tpDoc), u.token);
    await observer.synced;
    const total = WRITERS * UPDATES_PER_WRITER;
    const t0 = performance.now();
    for (let i = 0; i < UPDATES_PER_WRITER; i++) for (const w of writers) w.type("y");
    await waitFor(() => observer.received.length >= total, 300_000, "the observer to receive every writer's update");
    const tpMs = performance.now() - t0;
    const tpConverged = writers.every((w) => w.text.length === total) || observer.text.length === total;
    for (const p of [...writers, observer]) p.close();

    // 3. 10 000 small updates, stored uncompacted (interval raised for the measurement), then compacted.
    const smallDoc = await newDoc("Small updates");
    const small = new Peer(wsUrl(smallDoc), u.token);
    await small.synced;
    await inspect(smallDoc, { compactEvery: SMALL_UPDATES * 10 });
    const watcher = new Peer(wsUrl(smallDoc), u.token);
    await watcher.synced;
    const s0 = performance.now();
    for (let i = 0; i < SMALL_UPDATES; i++) small.type(String.fromCharCode(97 + (i % 26)));
    await waitFor(() => watcher.received.length >= SMALL_UPDATES, 900_000, "10 000 updates to be stored and broadcast");
    const smallMs = performance.now() - s0;
    const before = await inspect(smallDoc);
    const after = await inspect(smallDoc, { compact: true, compactEvery: null });
    small.close();
    watcher.close();

    printTable("Fan-out: one editor → 50 connected editors", [
      {
        updates: FANOUT_UPDATES,
        receipts: latencies.length,
        "p50 ms": percentile(latencies, 50).toFixed(1),
        "p99 ms": percentile(latencies, 99).toFixed(1),
        "max ms": Math.max(...latencies).toFixed(1),
        "target p99 ≤ 100 ms": percentile(latencies, 99) <= 100 ? "met" : "missed",
        converged,
      },
    ]);
    printTable("Throughput: 10 writers in one room", [
      {
        updates: total,
        "elapsed ms": tpMs.toFixed(0),
        "updates/s": ((total / tpMs) * 1000).toFixed(0),
        converged: tpConverged,
      },
    ]);
    printTable("Storage after 10 000 small updates", [
      {
        when: "before compaction",
        "stored bytes": before.stats.storedBytes,
        "stored updates": before.stats.updateCount,
        "state chunks": before.stats.stateChunks,
        "reload ms": before.reloadMs.toFixed(1),
        "reload matches": before.reloadMatches,
      },
      {
        when: "after compaction",
        "stored bytes": after.stats.storedBytes,
        "stored updates": after.stats.updateCount,
        "state chunks": after.stats.stateChunks,
        "reload ms": after.reloadMs.toFixed(1),
        "reload matches": after.reloadMatches,
      },
    ]);
    console.log(
      `(10 000 updates from one writer took ${smallMs.toFixed(0)} ms: ${((SMALL_UPDATES / smallMs) * 1000).toFixed(0)} updates/s; target reload ≤ 200 ms: ${Math.max(before.reloadMs, after.reloadMs) <= 200 ? "met" : "missed"})`,
    );
  } finally {
    await api.stop();
  }
}
