// npm start's local webhook inbox: an HTTP server inside the start script (so it ends with it) that records
// every request it receives and answers 204. Its origin is added to WEBHOOK_ALLOWED_ORIGINS, so a webhook
// automation can deliver to it locally; the README tour reads the signed delivery back from it and verifies it.
//   POST|PUT <any path>   recorded: { id, receivedAt, method, path, headers, body } (body as received, UTF-8)
//   GET /received         every recorded request, oldest first (the last 100)
//   GET /received/last    the newest one (404 while there is none)
import http from "node:http";

const KEEP = 100;
const MAX_BODY = 1024 * 1024;

export function startInbox({ port = 0, host = "127.0.0.1" } = {}) {
  const received = [];
  let next = 1;
  const server = http.createServer((req, res) => {
    const send = (status, body) => {
      res.writeHead(status, body === undefined ? {} : { "content-type": "application/json" });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    if (req.method === "GET" && req.url === "/received") return send(200, { data: received });
    if (req.method === "GET" && req.url === "/received/last") {
      return received.length
        ? send(200, { data: received.at(-1) })
        : send(404, { error: "NotFoundError", message: "Nothing received yet" });
    }
    if (req.method !== "POST" && req.method !== "PUT")
      return send(405, { error: "MethodNotAllowedError", message: "POST or PUT a webhook; GET /received lists them" });
    const chunks = [];
    let size = 0;
    req.on("data", (c) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on("end", () => {
      if (size > MAX_BODY) return send(413, { error: "PayloadTooLargeError", message: `over ${MAX_BODY} bytes` });
      received.push({
        id: next++,
        receivedAt: new Date().toISOString(),
        method: req.method,
        path: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      if (received.length > KEEP) received.shift();
      send(204);
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.unref();
      const url = `http://${host}:${server.address().port}`;
      resolve({ url, received, close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}
