// The README's "Collaborative editing" examples against a running service: a standard y-websocket provider
// connects unchanged, once the browser way (a single-use ticket in the URL) and once the Node way (the bearer token
// as a header through `ws`), and an edit made through one reaches the other through the room.
import WebSocket from "ws";
import { WebsocketProvider } from "y-websocket";
import * as Y from "yjs";

/** Resolves once `check()` holds, polling; fails after `ms`. */
async function until(check, what, ms = 15_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `api` is startApi()'s handle; `token` a user's token with a project `projectId`. Returns the steps it proved. */
export async function readmeCollab(api, token, projectId) {
  const docId = (await api.call("POST", "/document", { token, body: { projectId, name: "Live", type: "DOCUMENT" } }))
    .data._id;
  const server = `${api.url.replace(/^http/, "ws")}/document`;
  const room = `${docId}/collab`;

  // The browser way, as the README shows it.
  const { data } = await (
    await fetch(`${api.url}/document/${docId}/collab/ticket`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    })
  ).json();
  const a = new Y.Doc();
  const viaTicket = new WebsocketProvider(server, room, a, { params: { ticket: data.ticket }, disableBc: true });
  // The Node way: the bearer token as a header (ws), as the README shows it.
  const b = new Y.Doc();
  const viaHeader = new WebsocketProvider(server, room, b, {
    disableBc: true,
    WebSocketPolyfill: class extends WebSocket {
      constructor(u) {
        super(u, { headers: { authorization: `Bearer ${token}` } });
      }
    },
  });
  try {
    await until(() => viaTicket.synced && viaHeader.synced, "both providers to sync");
    a.getText("readme").insert(0, "hello from y-websocket");
    await until(
      () => b.getText("readme").toString() === "hello from y-websocket",
      "the edit to reach the other provider",
    );
    return ["y-websocket provider with a ticket and with a bearer header: both sync, an edit reaches the other"];
  } finally {
    viaTicket.destroy();
    viaHeader.destroy();
  }
}
