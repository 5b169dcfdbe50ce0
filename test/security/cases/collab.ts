import type { CaseFactory, SecurityCase } from "../types";

/**
 * Collaborative editing (docs/api-guide.md › Automations, published portals, collaborative editing). The suite's requests are plain GETs: authentication and access answer before
 * the missing upgrade would (401, then 404 for an outsider); the WebSocket paths are in test/routes/collab/connectCollaboration.test.ts.
 */
export const collabCases: CaseFactory = async (t): Promise<SecurityCase[]> => [
  { name: "GET /document/{id}/collab", method: "GET", path: `/document/${t.docId}/collab` },
  {
    name: "GET /document/{id}/collab?ticket= (unknown ticket)",
    method: "GET",
    path: `/document/${t.docId}/collab`,
    query: { ticket: "not-a-ticket" },
  },
  { name: "POST /document/{id}/collab/ticket", method: "POST", path: `/document/${t.docId}/collab/ticket` },
  // Deployment-admin only: every user token, the owner's included, is 401.
  {
    name: "POST /admin/collab/{id}",
    method: "POST",
    path: `/admin/collab/${t.docId}`,
    body: {},
    outsider: { status: 401, error: "UnauthorizedError" },
  },
];
