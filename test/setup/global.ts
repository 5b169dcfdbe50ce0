import type { TestProject } from "vitest/node";
import { startConverter } from "../../converter/src/index.ts";
import { startWebhookReceiver } from "./webhook-receiver.ts";
import { startDohServer } from "./doh-server.ts";
import { startCalcOracle } from "./calc-oracle.ts";

/**
 * Runs in Node before the workerd pool starts: the real PDF converter (warm LibreOffice processes) on a
 * loopback port, which the Worker under test reaches through CONVERTER_URL.
 */
export default async function setup(project: TestProject) {
  const secret = `test-${Math.random().toString(36).slice(2)}`;
  const converter = await startConverter({ port: 0, host: "127.0.0.1", secret, poolSize: 2, log: false });
  project.provide("converterUrl", converter.url);
  project.provide("converterSecret", secret);
  // Automation tests: a loopback webhook receiver, exempted through WEBHOOK_ALLOWED_ORIGINS (vitest.config.ts).
  const receiver = await startWebhookReceiver();
  project.provide("webhookReceiverUrl", receiver.url);
  // Portal domain tests: the DNS-over-HTTPS resolver that ownership checks ask (DOH_URL in vitest.config.ts).
  const doh = await startDohServer();
  project.provide("dohUrl", doh.url);
  // Formula tests: LibreOffice Calc as a differential oracle (started on the first request only).
  const calc = await startCalcOracle();
  project.provide("calcOracleUrl", calc.url);
  return async () => {
    await calc.close();
    await doh.close();
    await receiver.close();
    await converter.close();
  };
}
