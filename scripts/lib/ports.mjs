// Is a TCP port free? Asked by listening on it for a moment, which is what the real server will do next.
import net from "node:net";
import { StartError } from "./errors.mjs";

/** Resolves null when `host:port` can be listened on now, else the listen error's code (EADDRINUSE, …). */
export function listenProblem(port, host = "127.0.0.1") {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once("error", (err) => resolve(err.code ?? String(err)));
    srv.listen({ port, host, exclusive: true }, () => srv.close(() => resolve(null)));
  });
}

export const canListen = async (port, host) => (await listenProblem(port, host)) === null;

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
  const problem = await listenProblem(port, host);
  if (problem === null) return;
  const other = port === 65535 ? port - 1 : port + 1;
  if (problem === "EADDRINUSE") {
    throw new StartError(
      `Port ${port} on ${host} (${what}) is already in use by another process; nothing was started.`,
      {
        hint: `Pick another port: ${envName}=${other} npm start`,
      },
    );
  }
  if (problem === "EADDRNOTAVAIL" || problem === "ENOTFOUND" || problem === "EAI_AGAIN") {
    throw new StartError(
      `Cannot listen on ${host}: not an address of this machine (${problem}); nothing was started.`,
      {
        hint: "Set HOST to a local address, e.g. HOST=127.0.0.1 npm start",
      },
    );
  }
  throw new StartError(`Cannot listen on ${host}:${port} (${what}): ${problem}; nothing was started.`, {
    hint: `Pick another port: ${envName}=${other} npm start`,
  });
}

export function parsePort(value, fallback, envName) {
  if (value === undefined || value === "") return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new StartError(`${envName}=${value} is not a port number (1-65535).`, {
      hint: `For example: ${envName}=8788 npm start`,
    });
  }
  return port;
}
