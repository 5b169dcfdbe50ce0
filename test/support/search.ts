/** Search helpers shared by the search tests (test/routes/search/, test/shared/shard-move.test.ts). */
import { expect } from "vitest";
import { call, ok, type Tenant } from "./harness";
import { para } from "./collab-peer";

/** A word no other test file or case uses (a stem and ten letters a–f), so hits are exactly what a case wrote. */
export const word = (stem: string) =>
  `${stem}${crypto
    .randomUUID()
    .replace(/[^a-f]/g, "")
    .slice(0, 10)}`;

/** GET /search as `token`, answered as it comes. */
export const search = (token: string, q: string, query: Record<string, string | number> = {}) =>
  call("GET", "/search", { token, query: { q, ...query } });

/** GET /search as `token`: the hits' ids in the order of the answer (the answer must be a 200). */
export async function ids(token: string, q: string, query: Record<string, string | number> = {}) {
  const res = await search(token, q, query);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.data as { _id: string }[]).map((h) => h._id);
}

/**
 * Documents written into the tenant `tenant()` returns (read when called, so a file can seed it in beforeAll):
 * `mkDoc` creates one (in the tenant's folder unless `parentId` says otherwise), `putText` gives it one paragraph
 * per text.
 */
export function searchDocs(tenant: () => Tenant) {
  async function mkDoc(
    name: string,
    opts: { parentId?: string | null; type?: string; token?: string; projectId?: string } = {},
  ) {
    const t = tenant();
    const parentId = opts.parentId === undefined ? t.folderId : opts.parentId;
    const body: Record<string, unknown> = {
      projectId: opts.projectId ?? t.projectId,
      name,
      type: opts.type ?? "DOCUMENT",
    };
    if (parentId) body.parentId = parentId;
    return (await ok("POST", "/document", { token: opts.token ?? t.owner.token, body })).data._id as string;
  }
  const putText = (docId: string, ...texts: string[]) =>
    ok("PUT", `/document/${docId}/content`, {
      token: tenant().owner.token,
      body: { blocks: texts.map((x, i) => para(`b${i}`, x)) },
    });
  return { mkDoc, putText };
}
