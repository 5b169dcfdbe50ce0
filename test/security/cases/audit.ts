import type { CaseFactory, SecurityCase } from "../types";

/** The organization's audit log (docs/api-guide.md › Changes, history and audit): owners and admins only. */
export const auditCases: CaseFactory = async (t): Promise<SecurityCase[]> => [
  { name: "GET /organization/{id}/audit", method: "GET", path: `/organization/${t.organizationId}/audit` },
  {
    name: "GET /organization/{id}/audit/export",
    method: "GET",
    path: `/organization/${t.organizationId}/audit/export`,
  },
];
