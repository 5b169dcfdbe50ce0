/** DOCX uploads shared by the docx operation tests (test/routes/docx/). */
import { expect } from "vitest";
import { buildLyingDocx } from "../../converter/test/fixtures";
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

/** How long `fn` takes (ms, from performance.now()) beside what it answers. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}

const lyingDocxes = new Map<number, Uint8Array>();

/**
 * Security finding 8's DOCX (converter/test/fixtures.ts buildLyingDocx): headers declaring 900,000 bytes for
 * word/document.xml over a stream that inflates to `inflatedBytes`. Built once per size for the worker (deflating
 * 64 MiB is the costly part) and never written to, so the tests of every docx operation share it.
 */
export function lyingDocx(inflatedBytes: number): Uint8Array {
  let bytes = lyingDocxes.get(inflatedBytes);
  if (!bytes) lyingDocxes.set(inflatedBytes, (bytes = buildLyingDocx({ inflatedBytes })));
  return bytes;
}
