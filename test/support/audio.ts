/** Audio uploads and signed-URL reads, shared by the media operation tests (test/routes/media/). */
import { SELF } from "cloudflare:test";
import { call, type Tenant } from "./harness";

export interface AudioUploadOptions {
  /** The uploader's bearer token; the tenant owner's otherwise. */
  token?: string;
  headers?: Record<string, string>;
}

/** POST /media/audio of raw bytes into the tenant's document (memo.mp3, audio/mpeg unless `query` says otherwise). */
export function uploadAudio(
  t: Tenant,
  bytes: BodyInit,
  query: Record<string, string> = {},
  opts: AudioUploadOptions = {},
) {
  return call("POST", "/media/audio", {
    token: opts.token ?? t.owner.token,
    raw: bytes,
    query: { workspaceId: t.workspaceId, documentId: t.docId, fileName: "memo.mp3", mimeType: "audio/mpeg", ...query },
    headers: { "content-type": "application/octet-stream", ...opts.headers },
  });
}

/** Fetch a signed URL without any bearer token. */
export async function fetchSigned(url: string, headers: Record<string, string> = {}) {
  const res = await SELF.fetch(url, { headers });
  const type = res.headers.get("content-type") ?? "";
  return {
    status: res.status,
    headers: res.headers,
    body: type.includes("json") ? await res.json<any>() : new Uint8Array(await res.arrayBuffer()),
  };
}
