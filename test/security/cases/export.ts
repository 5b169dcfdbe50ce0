import type { CaseFactory } from "../types";
import { buildDocx } from "../../../converter/test/fixtures";

function b64(bytes: Uint8Array) {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

export const exportCases: CaseFactory = async (t) => [
  {
    name: "E6 POST /export/doc-to-pdf",
    method: "POST",
    path: "/export/doc-to-pdf",
    body: { data: [{ documentId: t.docId, docx: b64(buildDocx()) }] },
    outsider: { status: 403, error: "ForbiddenError" },
  },
];

export const exportDataCases: CaseFactory = async (t) => [
  {
    name: "E5 POST /export/get-documents-data",
    method: "POST",
    path: "/export/get-documents-data",
    body: { projectId: t.projectId, documentIds: [t.docId] },
    outsider: { status: 403, error: "ForbiddenError" },
  },
];
