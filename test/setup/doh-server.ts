import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback DNS-over-HTTPS resolver (the JSON API of cloudflare-dns.com/dns-query) for the portal domain tests:
 * `POST /records` `{ name, value }` publishes a TXT record, `GET /dns-query?name=…&type=TXT` answers the records of
 * that name as the real resolver does (each value quoted, long ones in 255-character strings), NXDOMAIN when none.
 */
export async function startDohServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const records = new Map<string, string[]>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://doh");
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "POST" && url.pathname === "/records") {
        const { name, value } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { name: string; value: string };
        const key = name.toLowerCase().replace(/\.$/, "");
        records.set(key, [...(records.get(key) ?? []), value]);
        res.writeHead(204).end();
        return;
      }
      if (req.method === "GET" && url.pathname === "/dns-query") {
        const name = (url.searchParams.get("name") ?? "").toLowerCase().replace(/\.$/, "");
        const values = url.searchParams.get("type")?.toUpperCase() === "TXT" ? (records.get(name) ?? []) : [];
        const quote = (v: string) =>
          (v.match(/.{1,255}/g) ?? [""]).map((part) => `"${part.replace(/["\\]/g, "\\$&")}"`).join(" ");
        const body = {
          Status: values.length ? 0 : 3,
          Question: [{ name: `${name}.`, type: 16 }],
          ...(values.length && {
            Answer: values.map((v) => ({ name: `${name}.`, type: 16, TTL: 300, data: quote(v) })),
          }),
        };
        res.writeHead(200, { "content-type": "application/dns-json" }).end(JSON.stringify(body));
        return;
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
