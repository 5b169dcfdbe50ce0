/** A document's collaboration room and ways to watch it, shared by the collab operation tests (test/routes/collab/). */
import { env } from "cloudflare:test";
import type { Block } from "../../src/services/collab/blocks";
import { ok, type Tenant } from "./harness";

/** The document's room Durable Object. */
export const room = (documentId: string) => env.DOCUMENT_ROOM.get(env.DOCUMENT_ROOM.idFromName(documentId));

/** The blocks the room holds, through its diagnostics surface. */
export const blocksOf = async (documentId: string) =>
  JSON.parse((await room(documentId).diagnostics({ blocks: true })).blocksJson!) as Block[];

/** The room's storage and connection figures. */
export const statsOf = async (stub: ReturnType<typeof room>) => (await stub.diagnostics()).stats;

/** A new document in the tenant's folder, created by its owner; answers its id. */
export async function newDocIn(t: Tenant, name: string) {
  const doc = await ok("POST", "/document", {
    token: t.owner.token,
    body: { projectId: t.projectId, parentId: t.folderId, name, type: "DOCUMENT" },
  });
  return doc.data._id as string;
}

/** Polls `probe` every 50 ms until `check` holds (answering that value); fails after `ms` naming `what`. */
export async function until<T>(probe: () => Promise<T>, check: (v: T) => boolean, what: string, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (check(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
