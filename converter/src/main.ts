// CLI entry: `node src/main.ts` (configuration via environment variables, see README.md).
import { startConverter } from "./server.ts";

let converter: Awaited<ReturnType<typeof startConverter>> | undefined;
let stopping = false;

async function shutdown(signal: NodeJS.Signals): Promise<void> {
  if (stopping) {
    process.exit(1); // second signal: give up waiting
  }
  stopping = true;
  process.stderr.write(`converter: ${signal} received, shutting down\n`);
  try {
    await converter?.close();
  } finally {
    process.exit(0);
  }
}

process.on("SIGTERM", (s) => void shutdown(s));
process.on("SIGINT", (s) => void shutdown(s));

try {
  converter = await startConverter();
  if (!converter.options.secret) {
    process.stderr.write("converter: warning: CONVERTER_SECRET is not set, POST /convert is not authenticated\n");
  }
  if (stopping) await converter.close();
  else console.log(`converter listening on ${converter.url} (pool ${converter.pool.slots.length})`);
} catch (err) {
  process.stderr.write(`converter: failed to start: ${(err as Error)?.message ?? String(err)}\n`);
  process.exit(1);
}
