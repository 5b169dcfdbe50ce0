import type { CaseFactory } from "../types";

/** Documents as Markdown (docs/api-guide.md › Markdown import and export). */
export const markdownCases: CaseFactory = async (t) => [
  {
    name: "POST /document/markdown",
    method: "POST",
    path: "/document/markdown",
    query: { projectId: t.projectId, parentId: t.folderId, name: "Sec md" },
    raw: () => "# Title\n\n- item\n",
    headers: { "content-type": "text/markdown" },
    viewerForbidden: true,
  },
  { name: "GET /document/{id}/export.md", method: "GET", path: `/document/${t.docId}/export.md` },
  { name: "GET /document/{id}/export.zip", method: "GET", path: `/document/${t.folderId}/export.zip` },
];
