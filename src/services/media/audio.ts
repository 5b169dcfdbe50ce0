/** Audio media (E9): format sniffing, signed content URLs, records. */
import {
  assembleDocumentsAccess,
  checkDocumentAccess,
  documentsAccessStatements,
  documentsAccessStatementsIn,
  notFoundAs,
  soleDocumentAccess,
} from "../../auth/access";
import { audioMedia } from "../../db/schema";
import type { Db } from "../../env";
import { ApiError, notFound, validation } from "../../errors";
import { hmacSha256, timingSafeEqualStrings } from "../../lib/crypto";
import { base64UrlEncode } from "../../lib/base64";
import { read, type ServiceContext } from "../context";
import { keptAnswerUpdates } from "../idempotency";
import { readPrefix, streamToR2, type Prefix } from "./upload";
import { audioStatement, audioWithDocumentStatement, documentOfAudio } from "./queries";
import { hasBody, type ByteRange } from "../../lib/r2";
import { recordReadEvent } from "../audit/log";

export const AUDIO_MIME_TYPES = [
  "audio/mpeg",
  "audio/wav",
  "audio/x-wav",
  "audio/mp4",
  "audio/x-m4a",
  "audio/ogg",
  "audio/aac",
] as const;
export type AudioMimeType = (typeof AUDIO_MIME_TYPES)[number];

/** E9 response `url` lifetime. */
export const AUDIO_URL_TTL_MS = 6 * 60 * 60 * 1000;
/** Bytes the sniffers look at. */
export const SNIFF_BYTES = 12;

const ascii = (head: Uint8Array, at: number, text: string) =>
  [...text].every((ch, i) => head[at + i] === ch.charCodeAt(0));

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

/** Whether the first bytes are what the declared MIME type promises (docs/api-guide.md › Files, export and media). */
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

/** Zero padding tolerated after an ID3 tag before the first MPEG frame. */
const ID3_PADDING_MAX = 64 * 1024;
/** ID3 tags tolerated one after another before the first frame. */
const ID3_TAGS_MAX = 4;

/**
 * Checks an `audio/mpeg` upload that starts with an ID3v2 tag past that tag (docs/api-guide.md › Files, export and media): what follows
 * the tag (and any zero padding, and any further ID3 tag) must be an MPEG audio frame, else 415 — an ID3 header is
 * no licence for HTML or anything else behind it. Fed the bytes as they stream to R2, so nothing is held whole.
 */
export class Id3Verifier {
  private offset = 0;
  /** Where the current tag ends (bytes before it are skipped), or null while reading a header. */
  private tagEnd: number | null = null;
  private pending: number[] = [];
  private padding = 0;
  private tags = 0;
  private decided = false;

  constructor(private readonly mimeType: string) {}

  push(chunk: Uint8Array) {
    let i = 0;
    while (i < chunk.length && !this.decided) {
      if (this.tagEnd !== null && this.offset < this.tagEnd) {
        const skip = Math.min(chunk.length - i, this.tagEnd - this.offset);
        i += skip;
        this.offset += skip;
        continue;
      }
      const byte = chunk[i]!;
      i += 1;
      this.offset += 1;
      this.step(byte);
    }
  }

  /** The end of the stream: an ID3 tag with no audio frame after it is refused too. */
  end() {
    if (!this.decided) this.refuse();
  }

  private step(byte: number) {
    if (this.tagEnd === null) {
      // Reading a 10-byte ID3v2 header: "ID3", version (2), flags, size (4 syncsafe bytes).
      this.pending.push(byte);
      if (this.pending.length < 10) return;
      const h = this.pending;
      if (
        h[0] !== 0x49 ||
        h[1] !== 0x44 ||
        h[2] !== 0x33 ||
        h[3] === 0xff ||
        h[4] === 0xff ||
        h.slice(6).some((b) => b >= 0x80)
      )
        this.refuse();
      const size = (h[6]! << 21) | (h[7]! << 14) | (h[8]! << 7) | h[9]!;
      const footer = (h[5]! & 0x10) !== 0 ? 10 : 0;
      this.tags += 1;
      this.tagEnd = this.offset + size + footer;
      this.pending = [];
      this.padding = 0;
      return;
    }
    // After a tag: zero padding, another tag, or the first frame header.
    if (this.pending.length === 0 && byte === 0) {
      if (++this.padding > ID3_PADDING_MAX) this.refuse();
      return;
    }
    this.pending.push(byte);
    if (this.pending.length < 4) return;
    const head = Uint8Array.from(this.pending);
    if (ascii(head, 0, "ID3") && this.tags < ID3_TAGS_MAX) {
      this.tagEnd = null; // the 4 bytes read so far are the start of the next header
      return;
    }
    if (!isMpegFrame(head)) this.refuse();
    this.decided = true;
  }

  private refuse(): never {
    this.decided = true;
    throw new ApiError("UnsupportedMediaTypeError", `The bytes after the ID3 tag are not ${this.mimeType} audio`);
  }
}

/** The reader the upload streams from, with every byte (the prefix already read included) passed through `verifier`. */
function verifiedReader(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  prefix: Prefix,
  verifier: Id3Verifier,
): ReadableStreamDefaultReader<Uint8Array> {
  for (const chunk of prefix.chunks) verifier.push(chunk);
  if (prefix.done) verifier.end();
  return {
    read: async () => {
      const r = await reader.read();
      if (r.done) verifier.end();
      else verifier.push(r.value);
      return r;
    },
    cancel: (reason?: unknown) => reader.cancel(reason),
    releaseLock: () => reader.releaseLock(),
    closed: reader.closed,
  } as ReadableStreamDefaultReader<Uint8Array>;
}

export function requireSigningSecret(secret: string | undefined): string {
  if (!secret)
    throw new ApiError("ServiceUnavailableError", "Signing is not configured on this deployment (SIGNING_SECRET)");
  return secret;
}

const signedMessage = (id: string, expires: number) => `audio:${id}:${expires}`;

export async function signAudioUrl(origin: string, id: string, secret: string, at: number): Promise<string> {
  const expires = at + AUDIO_URL_TTL_MS;
  const signature = base64UrlEncode(await hmacSha256(secret, signedMessage(id, expires)));
  return `${origin}/media/audio/${encodeURIComponent(id)}/content?expires=${expires}&signature=${signature}`;
}

/** 403 unless `expires` is in the future and `signature` is this deployment's signature of id and expiry. */
async function verifyAudioSignature(
  id: string,
  expires: string | undefined,
  signature: string | undefined,
  secret: string,
  at: number,
) {
  const denied = (why: string) => new ApiError("ForbiddenError", `This audio link is ${why}`);
  if (!expires || !signature || !/^\d{1,16}$/.test(expires)) throw denied("not validly signed");
  const expected = base64UrlEncode(await hmacSha256(secret, signedMessage(id, Number(expires))));
  if (!(await timingSafeEqualStrings(expected, signature))) throw denied("not validly signed");
  if (Number(expires) <= at) throw denied("expired");
}

export type AudioRow = typeof audioMedia.$inferSelect;

/** The audio record with whether its document is soft-deleted (a deleted document's media vanish with it). */
async function findAudio(db: Db, id: string): Promise<(AudioRow & { documentDeleted: boolean }) | null> {
  const [row] = await audioWithDocumentStatement(db, id);
  return row ? { ...row.audio, documentDeleted: row.documentDeleted } : null;
}

async function audioRecord(origin: string, row: AudioRow, secret: string, at: number) {
  return { _id: row.id, url: await signAudioUrl(origin, row.id, secret, at), mimeType: row.mimeType as AudioMimeType };
}

export interface UploadAudioInput {
  workspaceId: string;
  documentId: string;
  fileName: string;
  mimeType: AudioMimeType;
  /** The declared length and the body (src/http/upload.ts checked the headers). */
  upload: { length: number; body: ReadableStream<Uint8Array> | null };
  /** Where signed URLs point (the request's origin). */
  origin: string;
}

/**
 * E9: edit access to the document (unreadable 404, viewer 403), which must be in `workspaceId` (400); the first
 * bytes must match `mimeType` (415). Streamed to R2, then one insert: two D1 round trips. Nothing stays stored on error.
 */
export async function uploadAudio(ctx: ServiceContext, input: UploadAudioInput) {
  const secret = requireSigningSecret(ctx.env.SIGNING_SECRET);
  const [docs, wsRoles, docRoles] = await read(
    ctx,
    documentsAccessStatements(ctx.db, ctx.user.ref, [input.documentId]),
  );
  const { doc } = checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(input.documentId), "edit");
  if (doc.workspaceId !== input.workspaceId) {
    throw validation("The document is not in this workspace", [
      { path: "workspaceId", message: "does not contain the document" },
    ]);
  }
  const body = input.upload.body;
  if (!body) throw new ApiError("UnsupportedMediaTypeError", `The body is empty, not ${input.mimeType} audio`);
  const reader = body.getReader();
  const prefix = await readPrefix(reader, SNIFF_BYTES);
  if (!matchesAudioFormat(input.mimeType, prefix.head)) {
    await reader.cancel().catch(() => {});
    throw new ApiError("UnsupportedMediaTypeError", `The bytes are not ${input.mimeType} audio`);
  }

  let source = reader;
  if (input.mimeType === "audio/mpeg" && ascii(prefix.head, 0, "ID3")) {
    try {
      source = verifiedReader(reader, prefix, new Id3Verifier(input.mimeType));
    } catch (err) {
      await reader.cancel().catch(() => {});
      throw err;
    }
  }
  const id = ctx.ids.beside(doc.id);
  const r2Key = `audio/${doc.workspaceId}/${id}`;
  const stored = await streamToR2(ctx.env.BLOBS, r2Key, input.upload.length, prefix, source, {
    httpMetadata: { contentType: input.mimeType },
    customMetadata: { documentId: doc.id },
  });
  const row: AudioRow = {
    id,
    documentId: doc.id,
    workspaceId: doc.workspaceId,
    fileName: input.fileName,
    mimeType: input.mimeType,
    size: stored.size,
    r2Key,
    etag: stored.httpEtag,
    userId: ctx.user.id,
    createdAt: ctx.now,
  };
  const record = await audioRecord(input.origin, row, secret, ctx.now);
  try {
    // A keyed request's answer commits with the record (services/idempotency.ts), so a crash cannot part them.
    await ctx.db.batch([
      ctx.db.insert(audioMedia).values(row),
      ...(await keptAnswerUpdates(ctx, { payload: { data: record } })),
    ]);
  } catch (err) {
    await ctx.env.BLOBS.delete(r2Key);
    throw err;
  }
  return record;
}

/** GET /media/audio/{id}: a fresh record (new signed URL) with read access to its document. One D1 round trip. */
export async function getAudio(
  ctx: ServiceContext,
  { audioId, origin }: { audioId: string; /** Where the signed stream URL points. */ origin: string },
) {
  const secret = requireSigningSecret(ctx.env.SIGNING_SECRET);
  const [found, docs, wsRoles, docRoles] = await read(ctx, [
    audioStatement(ctx.db, audioId),
    ...documentsAccessStatementsIn(ctx.db, ctx.user.ref, documentOfAudio(audioId)),
  ]);
  const audio = found[0];
  if (!audio) throw notFound("Audio");
  await notFoundAs(
    "Audio",
    Promise.resolve().then(() => checkDocumentAccess(soleDocumentAccess([docs, wsRoles, docRoles]), "read")),
  );
  // The signed URL handed out is the download's authorization: recorded here, with who asked for it.
  recordReadEvent(ctx, "download.audio", { id: audio.id, workspaceId: audio.workspaceId });
  return audioRecord(origin, audio, secret, ctx.now);
}

export type AudioStream =
  | { kind: "unsatisfiable"; size: number }
  | { kind: "notModified"; etag: string }
  | { kind: "bytes"; body: ReadableStream; mimeType: string; etag: string; size: number; range: ByteRange | null };

/**
 * The bytes behind a signed URL (403 when expired or tampered). `rangeFor` turns the client's Range into a byte
 * range of the file once its size is known; R2 serves that range and evaluates `onlyIf` (If-None-Match) itself.
 */
export async function streamAudio(
  ctx: ServiceContext,
  input: {
    audioId: string;
    expires?: string;
    signature?: string;
    rangeFor: (size: number) => ByteRange | null | "unsatisfiable";
    onlyIf?: Headers | R2Conditional;
  },
): Promise<AudioStream> {
  await verifyAudioSignature(
    input.audioId,
    input.expires,
    input.signature,
    requireSigningSecret(ctx.env.SIGNING_SECRET),
    ctx.now,
  );
  const audio = await findAudio(ctx.db, input.audioId);
  if (!audio || audio.documentDeleted) throw notFound("Audio");
  const range = input.rangeFor(audio.size);
  if (range === "unsatisfiable") return { kind: "unsatisfiable", size: audio.size };
  const obj: R2Object | R2ObjectBody | null = await ctx.env.BLOBS.get(audio.r2Key, {
    ...(range && { range }),
    onlyIf: input.onlyIf,
  });
  if (!obj) throw notFound("Audio");
  if (!hasBody(obj)) return { kind: "notModified", etag: obj.httpEtag };
  return { kind: "bytes", body: obj.body, mimeType: audio.mimeType, etag: obj.httpEtag, size: audio.size, range };
}
