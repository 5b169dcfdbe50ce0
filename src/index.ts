import { buildApp } from "./app";
import type { Env } from "./env";
import { countingD1 } from "./db/instrument";

export { PdfConverterContainer } from "./services/converter/container";

export { TableFormulaCoordinator } from "./durable/TableFormulaCoordinator";

const app = buildApp();

export default {
  async fetch(request, env, ctx) {
    const counter = { count: 0 };
    const res = await app.fetch(request, { ...env, DB: countingD1(env.DB, counter) }, ctx);
    // A fresh Response keeps the body streaming and makes headers writable whatever produced `res`.
    const out = new Response(res.body, res);
    out.headers.set("x-d1-round-trips", String(counter.count));
    return out;
  },
} satisfies ExportedHandler<Env>;
