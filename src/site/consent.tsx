/** @jsxImportSource hono/jsx */
/**
 * The OAuth consent page (docs/api-guide.md › OAuth apps), on the reader site's stack: server-rendered, no script,
 * the site's stylesheet, a strict Content-Security-Policy. It names the app, where it sends the answer, the scopes
 * and resources asked for; the user approves or denies by posting it back with one of their own tokens (the service
 * has no browser login and sets no cookie, so a forged post without the token can do nothing).
 */
import type { Child } from "hono/jsx";
import { CSS_HREF } from "./assets";
import type { AuthorizeParams, CheckedRequest } from "../services/oauth/authorize";

const SCOPE_TEXT: Record<string, string> = {
  read: "read",
  write: "read and change",
};

const FAMILY_TEXT: Record<string, string> = {
  documents: "projects, documents, their content and exports",
  tables: "tables, columns, rows and cells",
  automations: "automations and their runs",
  portals: "published portals",
  members: "members, collaborators, invitations and your profile",
  changes: "the change feed",
  comments: "comments",
};

/** A scope in words, e.g. "read and change tables, columns, rows and cells". */
export function scopeText(scope: string): string {
  if (scope === "admin")
    return "create organizations and workspaces, change workspace settings, manage tokens and OAuth apps";
  const [family, level] = scope.split(":");
  return `${SCOPE_TEXT[level ?? ""] ?? level} ${FAMILY_TEXT[family ?? ""] ?? family}`;
}

/** The page's security headers; `formTarget` is the app's origin, where the approval's redirect goes. */
export function consentHeaders(formTarget: string | null): Record<string, string> {
  return {
    "Content-Security-Policy": `default-src 'none'; style-src 'self'; form-action 'self'${formTarget ? ` ${formTarget}` : ""}; base-uri 'none'; frame-ancestors 'none'`,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
  };
}

function Page({ title, children }: { title: string; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <title>{title}</title>
        <link rel="stylesheet" href={CSS_HREF} />
      </head>
      <body>
        <main id="main" class="gate">
          {children}
        </main>
      </body>
    </html>
  );
}

/** What the app asks for: each scope in words, and the resources it would be limited to. */
function Asked({ checked }: { checked: CheckedRequest }) {
  return (
    <>
      <ul aria-label="Scopes asked for">
        {checked.scopes.map((s) => (
          <li>
            {scopeText(s)} (<code>{s}</code>)
          </li>
        ))}
      </ul>
      {checked.resources.length ? (
        <>
          <p>only inside these organizations, workspaces or projects:</p>
          <ul aria-label="Resources asked for">
            {checked.resources.map((r) => (
              <li>
                <code>{r}</code>
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p>wherever you yourself have access.</p>
      )}
    </>
  );
}

/** The consent form: every parameter of the request carried back as it came, plus the user's token and choice. */
export function ConsentPage({
  checked,
  params,
  problem,
}: {
  checked: CheckedRequest;
  params: AuthorizeParams;
  problem?: string | null;
}) {
  const hidden = Object.entries({ ...params, resource: checked.resources.join(" ") }).filter(
    ([, v]) => v !== undefined && v !== "",
  );
  return (
    <Page title={`Authorize ${checked.app.name}`}>
      <h1>Authorize {checked.app.name}</h1>
      <p>
        <strong>{checked.app.name}</strong> asks for access to your workspace data. If you approve, it will be sent back
        to <code>{new URL(checked.redirectUri).origin}</code> with a token that can:
      </p>
      <Asked checked={checked} />
      <p>
        It never gets more than your own rights, and you can revoke it any time (DELETE /token/&#123;tokenId&#125;).
      </p>
      <form method="post" action="/oauth/authorize">
        {hidden.map(([k, v]) => (
          <input type="hidden" name={k} value={v} />
        ))}
        <label for="token">Your access token (cws_…)</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          aria-describedby={problem ? "token-error" : "token-help"}
        />
        <p id="token-help">
          This service has no login page: paste one of your tokens to prove it is you. It is used for this approval only
          and is not given to the app.
        </p>
        {problem ? (
          <p id="token-error" class="error" role="alert">
            {problem}
          </p>
        ) : null}
        <button type="submit" name="decision" value="approve">
          Approve
        </button>{" "}
        <button type="submit" name="decision" value="deny">
          Deny
        </button>
      </form>
    </Page>
  );
}

/** A request that cannot be answered to the app: shown to the user instead. */
export function OAuthProblemPage({ message }: { message: string }) {
  return (
    <Page title="Authorization request refused">
      <h1>Authorization request refused</h1>
      <p role="alert">{message}</p>
      <p>Tell the app's developer; nothing was shared.</p>
    </Page>
  );
}
