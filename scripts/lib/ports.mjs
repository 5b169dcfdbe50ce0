// Is a TCP port free? Asked by listening on it for a moment, which is what the real server will do next.
import net from "node:net";
import { StartError } from "./errors.mjs";

/** Resolves true when `host:port` can be listened on now, false when it is taken (or not allowed). */
export function canListen(port, host = "127.0.0.1") {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once("error", () => resolve(false));
    srv.listen({ port, host, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/** A port the OS says is free right now (for children whose port nobody chose). */
export function freePort(host = "127.0.0.1") {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once("error", reject);
    srv.listen(0, host, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Throws a one-line StartError when `port` is taken. `envName` is the variable that picks another one
 * (`PORT`, `CONVERTER_PORT`), so the message can say exactly what to type.
 */
export async function assertPortFree(port, { host = "127.0.0.1", what, envName }) {
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new StartError(`${envName}=${port} is not a port number (1-65535).`);
  }
  if (await canListen(port, host)) return;
  const other = port === 65535 ? port - 1 : port + 1;
  throw new StartError(
    `Port ${port} on ${host} (${what}) is already in use by another process; nothing was started.`,
    { hint: `Pick another port: ${envName}=${other} npm start` },
  );
}

export function parsePort(value, fallback, envName) {
  if (value === undefined || value === "") return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new StartError(`${envName}=${value} is not a port number (1-65535).`, { hint: `For example: ${envName}=8788 npm start` });
  }
  return port;
}
