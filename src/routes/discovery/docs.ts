/**
 * GET /docs: the interactive API reference, served entirely by this Worker (docs/api-guide.md › Discovery). The page loads Scalar's
 * standalone bundle from the Worker's static assets (/docs/scalar.js, copied into public/ by scripts/build-assets.mjs)
 * and reads /openapi.json; the configuration turns off everything that would reach another origin (web fonts,
 * telemetry, the AI agent, the request proxy), and the Content-Security-Policy forbids any other origin anyway.
 */
import type { Context } from "hono";
import type { HonoEnv } from "../../env";
import { encodeBase64 } from "../../lib/base64";

const TITLE = "Collaborative Workspace Service API";

const configuration = {
  url: "/openapi.json",
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  hideClientButton: true,
  showDeveloperTools: "never",
  documentDownloadType: "json",
  metaData: { title: TITLE },
};

function nonce() {
  return encodeBase64(crypto.getRandomValues(new Uint8Array(16)));
}

export function apiReferencePage(c: Context<HonoEnv>) {
  const n = nonce();
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${TITLE}</title>
</head>
<body>
<div id="app"></div>
<script src="/docs/scalar.js"></script>
<script nonce="${n}">Scalar.createApiReference("#app", ${JSON.stringify(configuration)});</script>
</body>
</html>`;
  const csp = [
    "default-src 'none'",
    `script-src 'self' 'nonce-${n}'`,
    // Scalar injects its styles at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
  return c.html(html, 200, {
    "content-security-policy": csp,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  });
}
