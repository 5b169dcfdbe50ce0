/** A published portal and a reader-site fetch, shared by the portals' operation tests (test/routes/portals/). */
import { SELF } from "cloudflare:test";
import { BASE, ok, type Tenant } from "./harness";
import { verifyDomain } from "./portalDomains";

let n = 0;
/** A slug (or host-name label) no other test uses. */
export const uniqueSlug = (p = "p") =>
  `${p}-${Date.now().toString(36)}-${++n}-${Math.random().toString(36).slice(2, 6)}`;

export interface PortalOptions {
  slug?: string;
  domain?: string;
  password?: string;
  expiresAt?: number;
  allowIndexing?: boolean;
  name?: string;
  docName?: string;
  /** Whose project it is; the caller's default tenant otherwise. */
  tenant?: Tenant;
}

/** A fresh project of the tenant with published documents (folder → doc, plus an unpublished and a deleted one). */
export async function seedPortalFor(defaultTenant: Tenant, opts: PortalOptions = {}) {
  const tenant = opts.tenant ?? defaultTenant;
  const tok = tenant.owner.token;
  const project = (
    await ok("POST", "/project", {
      token: tok,
      body: { workspaceId: tenant.workspaceId, name: opts.name ?? "Handbook", description: "Our team handbook" },
    })
  ).data;
  const mk = async (name: string, type: "FOLDER" | "DOCUMENT", parentId?: string) =>
    (
      await ok("POST", "/document", {
        token: tok,
        body: { projectId: project._id, name, type, ...(parentId && { parentId }) },
      })
    ).data._id as string;
  const folder = await mk("Policies", "FOLDER");
  const doc = await mk(opts.docName ?? "Leave policy", "DOCUMENT", folder);
  const hidden = await mk("Draft salaries", "DOCUMENT", folder);
  const gone = await mk("Deleted page", "DOCUMENT", folder);
  for (const id of [folder, doc, gone]) await ok("POST", `/document/${id}/publish`, { token: tok, body: {} });
  await ok("DELETE", `/document/${gone}`, { token: tok });
  const slug = opts.slug ?? uniqueSlug();
  const published = await ok("POST", `/project/${project._id}/publish`, {
    token: tok,
    body: {
      slug,
      ...(opts.domain && { domain: opts.domain }),
      ...(opts.password && { password: opts.password }),
      ...(opts.expiresAt && { expiresAt: opts.expiresAt }),
      ...(opts.allowIndexing !== undefined && { allowIndexing: opts.allowIndexing }),
    },
  });
  // A domain is served once its owner proves it (TXT record on the tests' resolver, then verify-domain).
  const record = opts.domain ? await verifyDomain(tok, project._id, slug) : published.data;
  return { projectId: project._id as string, folder, doc, hidden, gone, slug, project: record };
}

/** A reader-site page fetched without following redirects, on the service host or the given portal host. */
export async function page(path: string, init: RequestInit & { host?: string } = {}) {
  const url = init.host ? `http://${init.host}${path}` : `${BASE}${path}`;
  const res = await SELF.fetch(url, { redirect: "manual", ...init });
  return { status: res.status, headers: res.headers, text: await res.text() };
}
