import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { authenticateNow } from "../../http/routeAuth";
import { errorResponses, pathId, security, type Router } from "../../openapi";
import { ApiError } from "../../errors";
import { checkCollabTicket, collabSession, redeemCollabTicket } from "../../services/collab/sessions";
import { roomOf } from "../../services/collab/rooms";
import { refuseCredential } from "../../auth/authenticate";
import { clientAddress } from "../../http/clientAddress";

/** The shape of an issued ticket (32 random bytes, base64url): anything else is refused without waking the room. */
const TICKET_SHAPE = /^[A-Za-z0-9_-]{43}$/;

const route = defineRoute({
  operationId: "connectCollaboration",
  // Authenticated by a bearer token or by a single-use ticket (browsers cannot set Authorization on a WebSocket),
  // so the handler authenticates itself; the operation still declares bearer security.
  auth: "public",
  security,
  method: "get",
  path: "/document/{documentId}/collab",
  tags: ["Collaboration"],
  summary: "Open the document's collaborative room (WebSocket)",
  description:
    "Upgrades to a WebSocket speaking the y-websocket sync and awareness protocol (y-protocols), so standard Yjs providers connect unchanged. " +
    "The shared document holds the blocks in the XmlFragment `document-store` (BlockNote's layout). Authenticate with `Authorization: Bearer …` " +
    "or with `?ticket=` from `POST /document/{documentId}/collab/ticket` (single use, 60 s). Read access connects; without edit access the " +
    "socket receives updates but its document updates are refused with a y-protocols permission-denied message. A request without " +
    "`Upgrade: websocket` is 400. Updates are stored (in chunks under 2 MB) before they are applied or sent. Close codes (only the socket " +
    "concerned): 1003 unparseable message, 1009 the document would pass 32 MiB or the update could not be stored, 4403 access removed, " +
    "4422 blocks nested more than 32 deep, 4429 more than 50 messages a second (burst 200), 4503 room full (50 sockets per document, 10 per user).",
  request: {
    params: z.object({ documentId: pathId("documentId") }),
    query: z.object({
      ticket: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .openapi({ description: "A ticket from POST /document/{documentId}/collab/ticket" }),
    }),
  },
  responses: {
    101: { description: "Switching protocols: the WebSocket of the room" },
    ...errorResponses(),
  },
});

const notUpgrade = () =>
  new ApiError("ValidationError", "This route opens a WebSocket: send Upgrade: websocket (426 Upgrade Required)");

export function registerConnectCollaboration(app: Router) {
  app.openapi(route, async (c) => {
    const { documentId } = c.req.valid("param");
    const { ticket } = c.req.valid("query");
    let ctx = ctxOf(c);
    const upgrade = c.req.header("upgrade")?.toLowerCase() === "websocket";
    let userId: string;
    if (ticket && !c.req.header("authorization")) {
      // Authentication first (401), but a plain GET never uses a ticket up.
      // A wrong ticket is a failed authentication like a wrong token: counted per client address (429 past the limit).
      const attempt = { env: c.env, address: clientAddress(c.req.raw.headers, c.env) };
      const refuse = (err: unknown): never => {
        if (err instanceof ApiError && err.code === "UnauthorizedError")
          return refuseCredential(attempt, err.message) as never;
        throw err;
      };
      if (!TICKET_SHAPE.test(ticket))
        await refuseCredential(attempt, "The collaboration ticket is unknown, expired or already used");
      if (!upgrade) {
        await checkCollabTicket(ctx, { documentId, ticket }).catch(refuse);
        throw notUpgrade();
      }
      userId = await redeemCollabTicket(ctx, { documentId, ticket }).catch(refuse);
    } else {
      await authenticateNow(c, async () => undefined);
      // Authentication made the request's context anew, acting as the token's user.
      ctx = ctxOf(c);
      userId = ctx.user.id;
    }
    const session = await collabSession(ctx, { documentId, user: userId });
    if (!upgrade) throw notUpgrade();
    const res = await roomOf(c.env, documentId).fetch(c.req.url, {
      headers: { upgrade: "websocket", "x-collab-session": JSON.stringify(session) },
    });
    if (!res.webSocket) return res as never;
    // A fresh response with mutable headers, so the request middleware can still add its headers to the 101.
    return new Response(null, { status: 101, webSocket: res.webSocket, headers: new Headers(res.headers) }) as never;
  });
}
