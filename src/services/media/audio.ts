/** Audio media (E9): format sniffing, signed content URLs, records. */
import { eq } from "drizzle-orm";
import { audioMedia, documents } from "../../db/schema";
import type { Db } from "../../env";
import { ApiError } from "../../errors";
import { base64UrlEncode, hmacSha256, timingSafeEqualStrings } from "../../lib/crypto";

export const AUDIO_MIME_TYPES = ["audio/mpeg", "audio/wav", "audio/x-wav", "audio/mp4", "audio/x-m4a", "audio/ogg", "audio/aac"] as const;
export type AudioMimeType = (typeof AUDIO_MIME_TYPES)[number];

/** E9 response `url` lifetime. */
export const AUDIO_URL_TTL_MS = 6 * 60 * 60 * 1000;
/** Bytes the sniffers look at. */
export const SNIFF_BYTES = 12;

const ascii = (head: Uint8Array, at: number, text: string) => [...text].every((ch, i) => head[at + i] === ch.charCodeAt(0));

/** An MPEG audio frame header: 11 sync bits, a valid version, layer, bitrate and sample rate. */
function isMpegFrame(h: Uint8Array) {
  if (h.length < 4 || h[0] !== 0xff || (h[1]! & 0xe0) !== 0xe0) return false;
  const version = (h[1]! >> 3) & 0x03;
  const layer = (h[1]! >> 1) & 0x03;
  const bitrate = h[2]! >> 4;
  const rate = (h[2]! >> 2) & 0x03;
  return version !== 0x01 && layer !== 0x00 && bitrate !== 0x0f && rate !== 0x03;
}

/** An ADTS header: 12 sync bits and layer 00. */
function isAdts(h: Uint8Array) {
  return h.length >= 2 && h[0] === 0xff && (h[1]! & 0xf6) === 0xf0;
}

/** Whether the first bytes are what the declared MIME type promises (API.md §11). */
export function matchesAudioFormat(mimeType: AudioMimeType, head: Uint8Array): boolean {
  switch (mimeType) {
    case "audio/mpeg":
      return ascii(head, 0, "ID3") || isMpegFrame(head);
    case "audio/wav":
    case "audio/x-wav":
      return ascii(head, 0, "RIFF") && ascii(head, 8, "WAVE");
    case "audio/mp4":
    case "audio/x-m4a":
      return ascii(head, 4, "ftyp");
    case "audio/ogg":
      return ascii(head, 0, "OggS");
    case "audio/aac":
      return isAdts(head);
  }
}

export function requireSigningSecret(secret: string | undefined): string {
  if (!secret) throw new ApiError("ServiceUnavailableError", "Signing is not configured on this deployment (SIGNING_SECRET)");
  return secret;
}

const signedMessage = (id: string, expires: number) => `audio:${id}:${expires}`;

export async function signAudioUrl(origin: string, id: string, secret: string, at = Date.now()): Promise<string> {
  const expires = at + AUDIO_URL_TTL_MS;
  const signature = base64UrlEncode(await hmacSha256(secret, signedMessage(id, expires)));
  return `${origin}/media/audio/${encodeURIComponent(id)}/content?expires=${expires}&signature=${signature}`;
}

/** 403 unless `expires` is in the future and `signature` is this deployment's signature of id and expiry. */
export async function verifyAudioSignature(id: string, expires: string | undefined, signature: string | undefined, secret: string) {
  const denied = (why: string) => new ApiError("ForbiddenError", `This audio link is ${why}`);
  if (!expires || !signature || !/^\d{1,16}$/.test(expires)) throw denied("not validly signed");
  const expected = base64UrlEncode(await hmacSha256(secret, signedMessage(id, Number(expires))));
  if (!(await timingSafeEqualStrings(expected, signature))) throw denied("not validly signed");
  if (Number(expires) <= Date.now()) throw denied("expired");
}

export type AudioRow = typeof audioMedia.$inferSelect;

/** The audio record with whether its document is soft-deleted (a deleted document's media vanish with it). */
export async function findAudio(db: Db, id: string): Promise<(AudioRow & { documentDeleted: boolean }) | null> {
  const [row] = await db
    .select({ audio: audioMedia, documentDeleted: documents.isDeleted })
    .from(audioMedia)
    .innerJoin(documents, eq(documents.id, audioMedia.documentId))
    .where(eq(audioMedia.id, id));
  return row ? { ...row.audio, documentDeleted: row.documentDeleted } : null;
}

export async function audioRecord(origin: string, row: AudioRow, secret: string) {
  return { _id: row.id, url: await signAudioUrl(origin, row.id, secret), mimeType: row.mimeType as AudioMimeType };
}

export type ByteRange = { offset: number; length: number };

/**
 * A single `bytes=` range of a `size`-byte object (RFC 9110 §14): `null` when the header is absent, malformed or
 * asks for several ranges (served whole), `"unsatisfiable"` for a range outside the object.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | null | "unsatisfiable" {
  if (!header) return null;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === "" && m[2] === "")) return null;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    const length = Math.min(suffix, size);
    return { offset: size - length, length };
  }
  const start = Number(m[1]);
  if (m[2] !== "" && Number(m[2]) < start) return null;
  if (start >= size) return "unsatisfiable";
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  return { offset: start, length: end - start + 1 };
}
