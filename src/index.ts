import { buildApp } from "./app";
import type { Env } from "./env";

export { PdfConverterContainer } from "./services/converter/container";

const app = buildApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
