import { Container } from "@cloudflare/containers";
import type { Env } from "../../env";

/**
 * The converter image (converter/Dockerfile) run as a Cloudflare Container in production. Kept warm for a
 * while after use so a burst of exports does not pay the office suite's start-up again.
 */
export class PdfConverterContainer extends Container<Env> {
  override defaultPort = 8080;
  override sleepAfter = "15m";

  constructor(ctx: DurableObjectState<{}>, env: Env) {
    super(ctx, env);
    this.envVars = { CONVERTER_SECRET: env.CONVERTER_SECRET ?? "", PORT: "8080", HOST: "0.0.0.0" };
  }
}
