/**
 * A Yjs client over the pool's WebSocket support, speaking the y-websocket protocol with y-protocols directly (what
 * y-websocket's WebsocketProvider sends): sync step 1 on open, updates as they happen, awareness on demand.
 */
import { SELF } from "cloudflare:test";
import * as Y from "yjs";
import * as encoding from "lib0/encoding";
import * as decoding from "lib0/decoding";
import * as syncProtocol from "y-protocols/sync";
import * as authProtocol from "y-protocols/auth";
import { BASE } from "./harness";
import { FRAGMENT_NAME, writeBlocks, type Block } from "../../src/services/collab/blocks";
import { readBlocks } from "../../src/services/collab/readBlocks";

export class Peer {
  readonly doc = new Y.Doc();
  readonly denied: string[] = [];
  readonly awareness: Uint8Array[] = [];
  /** The room's `comments` messages (type 100, docs/api-guide.md › Comments), parsed. */
  readonly comments: { type: string; change: string; threadId: string; commentId: string }[] = [];
  closed: { code: number; reason: string } | null = null;
  private synced = false;
  private waiters: (() => void)[] = [];

  constructor(readonly ws: WebSocket) {
    ws.accept();
    // Binary frames arrive as Blobs here; they are decoded in arrival order.
    let chain = Promise.resolve();
    ws.addEventListener("message", (ev) => {
      const data = ev.data as ArrayBuffer | Blob | string;
      chain = chain.then(async () => {
        if (typeof data === "string") return;
        this.receive(new Uint8Array(data instanceof Blob ? await data.arrayBuffer() : data));
      });
    });
    ws.addEventListener("close", (ev) => {
      void chain.then(() => {
        this.closed = { code: ev.code, reason: ev.reason };
        this.notify();
      });
    });
    this.doc.on("update", (update: Uint8Array, origin: unknown) => {
      if (origin === this) return;
      const e = encoding.createEncoder();
      encoding.writeVarUint(e, 0);
      syncProtocol.writeUpdate(e, update);
      this.send(encoding.toUint8Array(e));
    });
    const e = encoding.createEncoder();
    encoding.writeVarUint(e, 0);
    syncProtocol.writeSyncStep1(e, this.doc);
    this.send(encoding.toUint8Array(e));
  }

  send(bytes: Uint8Array) {
    if (!this.closed) this.ws.send(bytes);
  }

  private receive(data: Uint8Array) {
    const decoder = decoding.createDecoder(data);
    const type = decoding.readVarUint(decoder);
    if (type === 0) {
      const e = encoding.createEncoder();
      encoding.writeVarUint(e, 0);
      const sub = syncProtocol.readSyncMessage(decoder, e, this.doc, this);
      if (sub === syncProtocol.messageYjsSyncStep2) this.synced = true;
      if (encoding.length(e) > 1) this.send(encoding.toUint8Array(e));
    } else if (type === 1) {
      this.awareness.push(decoding.readVarUint8Array(decoder));
    } else if (type === 2) {
      authProtocol.readAuthMessage(decoder, this.doc, (_doc, reason) => this.denied.push(reason));
    } else if (type === 100) {
      this.comments.push(JSON.parse(decoding.readVarString(decoder)));
    }
    this.notify();
  }

  private notify() {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves when `check` holds (re-checked on every message and close); rejects after `ms`. */
  async until(check: () => boolean, what: string, ms = 5000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!check()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 50));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  whenSynced() {
    return this.until(() => this.synced, "sync step 2");
  }

  get fragment() {
    return this.doc.getXmlFragment(FRAGMENT_NAME);
  }

  blocks(): Block[] {
    return readBlocks(this.fragment);
  }

  write(blocks: Block[]) {
    writeBlocks(this.fragment, blocks);
  }

  /** The XmlText of the n-th top-level block's content node. */
  text(n = 0): Y.XmlText {
    const group = this.fragment.get(0) as Y.XmlElement;
    const container = group.get(n) as Y.XmlElement;
    return (container.get(0) as Y.XmlElement).get(0) as unknown as Y.XmlText;
  }

  close() {
    try {
      this.ws.close(1000, "bye");
    } catch {
      // already closed
    }
  }
}

export async function openSocket(
  documentId: string,
  opts: { token?: string; ticket?: string; headers?: Record<string, string> } = {},
) {
  const url = new URL(`/document/${documentId}/collab`, BASE);
  if (opts.ticket) url.searchParams.set("ticket", opts.ticket);
  // Each socket from its own client address, as call() does: refused tickets count as failed authentications per
  // address (60 a minute), and the suite's sockets together must not spend one address's budget.
  const b = crypto.getRandomValues(new Uint8Array(3));
  const headers: Record<string, string> = {
    upgrade: "websocket",
    "cf-connecting-ip": `100.${64 + (b[0]! & 63)}.${b[1]}.${b[2]}`,
    ...(opts.headers ?? {}),
  };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  return SELF.fetch(url, { headers });
}

export async function connect(documentId: string, opts: { token?: string; ticket?: string } = {}): Promise<Peer> {
  const res = await openSocket(documentId, opts);
  if (res.status !== 101 || !res.webSocket) throw new Error(`upgrade failed: ${res.status} ${await res.text()}`);
  const peer = new Peer(res.webSocket);
  await peer.whenSynced();
  return peer;
}

export const para = (id: string, text: string, styles: Record<string, string | boolean> = {}): Block => ({
  id,
  type: "paragraph",
  props: {},
  content: [{ type: "text", text, styles }],
  children: [],
});
