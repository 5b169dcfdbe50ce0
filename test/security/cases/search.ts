import type { CaseFactory, SecurityCase } from "../types";

/** GET /search answers an outsider with an empty page: nothing found, nothing revealed. */
export const searchCases: CaseFactory = async (t): Promise<SecurityCase[]> => [
  {
    name: "GET /search",
    method: "GET",
    path: "/search",
    query: { q: "Doc" },
    outsider: { status: 200, body: { data: [], nextCursor: null } },
  },
  {
    name: "GET /search (workspace filter)",
    method: "GET",
    path: "/search",
    query: { q: "Doc", workspaceId: t.workspaceId },
    outsider: { status: 200, body: { data: [], nextCursor: null } },
  },
  {
    name: "GET /search (comments of a project)",
    method: "GET",
    path: "/search",
    query: { q: "Doc", type: "comment", projectId: t.projectId },
    outsider: { status: 200, body: { data: [], nextCursor: null } },
  },
  // The deployment admin's route: a user's token (any user) is a failed admin authentication.
  {
    name: "POST /admin/search/reindex",
    method: "POST",
    path: "/admin/search/reindex",
    body: {},
    outsider: { status: 401, error: "UnauthorizedError" },
  },
];
