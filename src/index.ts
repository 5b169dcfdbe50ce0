import { buildApp } from "./app";
import type { Env } from "./env";

export { TableFormulaCoordinator } from "./durable/TableFormulaCoordinator";

const app = buildApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
