/** DOCX uploads shared by the docx operation tests (test/routes/docx/). */
import { expect } from "vitest";
import { docxBytes, DOCX_TYPE } from "./content-fixtures";
import { call, type Tenant } from "./harness";

/** POST /document/docx of raw bytes with the given query, as `token`. */
export const postDocx = (
  bytes: Uint8Array,
  query: Record<string, string>,
  token: string,
  headers: Record<string, string> = {},
) => call("POST", "/document/docx", { token, raw: bytes, query, headers: { "content-type": DOCX_TYPE, ...headers } });

/** A new DOCX document in the tenant's folder, created by its owner; answers the Document record. */
export async function newDocxIn(t: Tenant, name = "Contract.docx", bytes = docxBytes()) {
  const res = await postDocx(bytes, { projectId: t.projectId, name, parentId: t.folderId }, t.owner.token);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}
