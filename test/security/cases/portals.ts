import type { CaseFactory, SecurityCase } from "../types";
import { ok } from "../../support/harness";

/**
 * Portal routes (docs/api-guide.md › Automations, published portals, collaborative editing). Publishing needs a project admin (viewer 403, outsider 404); E13/E14 and the login are
 * readable by any valid bearer token, so an outsider gets what everyone gets.
 */
export const portalCases: CaseFactory = async (t): Promise<SecurityCase[]> => {
  const slug = `sec-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  await ok("POST", `/document/${t.docId}/publish`, { token: t.owner.token, body: {} });
  await ok("POST", `/project/${t.projectId}/publish`, { token: t.owner.token, body: { slug } });
  // An entry with a (pending) domain, for verify-domain.
  await ok("POST", `/project/${t.projectId}/publish`, {
    token: t.owner.token,
    body: { slug: `${slug}-d`, domain: `${slug}.example.com` },
  });
  return [
    {
      name: "POST /project/{id}/publish",
      method: "POST",
      path: `/project/${t.projectId}/publish`,
      body: { slug: `${slug}-x` },
      viewerForbidden: true,
    },
    {
      name: "PATCH /project/{id}/publish/{slug}",
      method: "PATCH",
      path: `/project/${t.projectId}/publish/${slug}`,
      body: { allowIndexing: false },
      viewerForbidden: true,
    },
    {
      name: "POST /project/{id}/publish/{slug}/verify-domain",
      method: "POST",
      path: `/project/${t.projectId}/publish/${slug}-d/verify-domain`,
      viewerForbidden: true,
    },
    {
      name: "DELETE /project/{id}/publish/{slug}",
      method: "DELETE",
      path: `/project/${t.projectId}/publish/${slug}`,
      viewerForbidden: true,
    },
    {
      name: "PUT /project/{id}/branding",
      method: "PUT",
      path: `/project/${t.projectId}/branding`,
      body: { company: { name: "x" } },
      viewerForbidden: true,
    },
    {
      name: "E13 GET /published/{id}/branding",
      method: "GET",
      path: `/published/${t.projectId}/branding`,
      outsider: { status: 200, body: { data: null } },
    },
    {
      name: "E14 GET /published/{id}/project",
      method: "GET",
      path: `/published/${t.projectId}/project`,
      outsider: { status: 200 },
    },
    {
      name: "POST /published/{id}/login",
      method: "POST",
      path: `/published/${t.projectId}/login`,
      body: { password: "x" },
      headers: { "cf-connecting-ip": "10.9.9.9" },
      outsider: { status: 200 },
    },
  ];
};
