import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback webhook receiver for the automation tests (the Worker under test reaches it because its origin is in
 * WEBHOOK_ALLOWED_ORIGINS). `/hook/<key>?statuses=503,200&retryAfter=N` records each request under `key` and
 * answers the n-th one with the n-th status (the last repeats; default 200; `&location=` adds that header; `&holdMs=`
 * answers that much later); `GET /log/<key>` lists them, each with `inFlight`: the key's requests unanswered when it came, itself included.
 */
export async function startWebhookReceiver(): Promise<{ url: string; close: () => Promise<void> }> {
  const log = new Map<
    string,
    { method: string; headers: Record<string, string>; body: string; at: number; inFlight: number }[]
  >();
  const inFlight = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://receiver");
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const [, kind, key] = url.pathname.split("/");
      if (kind === "log" && key) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(log.get(key) ?? []));
        return;
      }
      if (kind !== "hook" || !key) {
        res.writeHead(404).end();
        return;
      }
      const list = log.get(key) ?? [];
      inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
      list.push({
        method: req.method ?? "",
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
        inFlight: inFlight.get(key)!,
      });
      log.set(key, list);
      const statuses = (url.searchParams.get("statuses") ?? "200").split(",").map(Number);
      const status = statuses[Math.min(list.length - 1, statuses.length - 1)] ?? 200;
      const headers: Record<string, string> = { "content-type": "text/plain" };
      if (url.searchParams.get("retryAfter")) headers["retry-after"] = url.searchParams.get("retryAfter")!;
      if (url.searchParams.get("location")) headers.location = url.searchParams.get("location")!;
      setTimeout(
        () => {
          inFlight.set(key, inFlight.get(key)! - 1);
          res.writeHead(status, headers).end("ok");
        },
        Number(url.searchParams.get("holdMs") ?? 0),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
