// ZIP structure and size bounds, read from the central directory without inflating anything.
// Plain TypeScript with no Node or Workers API, so the Worker (src/lib/docx.ts) runs the very same check before
// it sends a byte to this service, and this service runs it again before a byte reaches LibreOffice.
//
// Nothing here trusts one header alone: the end-of-central-directory record (and its zip64 twin), every
// central-directory entry (with its zip64 extra field) and every entry's local header must agree, entries may
// not overlap (the "overlapping files" bomb) or repeat a name, and only stored and deflated entries are allowed.
// What the entries declare is then held to the bounds. Whether the compressed data really inflates to what the
// headers declare is checked by `inflatedSizeProblem` in docx.ts, which inflates (streaming, bounded).

export const MiB = 1024 * 1024;

export interface ZipBounds {
  /** Sum of every entry's declared inflated size. */
  maxTotalInflated: number;
  /** Inflated size ÷ compressed size of one entry. */
  maxRatio: number;
  /** Entries that inflate to no more than this are exempt from the ratio (tiny parts compress wildly). */
  ratioGraceBytes: number;
}

/** The service's bounds (docs/api-guide.md, "Resource bounds"): 100 MiB inflated in all, 100:1 per entry. */
export const DOCX_BOUNDS: ZipBounds = { maxTotalInflated: 100 * MiB, maxRatio: 100, ratioGraceBytes: MiB };

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  flags: number;
  crc32: number;
  compressedSize: number;
  inflatedSize: number;
  localHeaderOffset: number;
  /** Where the entry's compressed bytes start (after its local header). */
  dataOffset: number;
}

export type ZipVerdict =
  | { ok: true; entries: ZipEntry[]; totalInflated: number }
  /** Not a ZIP, or one whose records contradict each other. */
  | { ok: false; kind: "malformed"; reason: string }
  /** A consistent ZIP that declares more than the bounds allow. */
  | { ok: false; kind: "too-large"; reason: string };

const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_EOCD = 0x06054b50;
const SIG_ZIP64_EOCD = 0x06064b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EXTRA = 0x0001;
const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;

class Malformed extends Error {}

function fail(reason: string): never {
  throw new Malformed(reason);
}

function u64(view: DataView, at: number): number {
  const value = view.getBigUint64(at, true);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) fail("a zip64 field is out of range");
  return Number(value);
}

function inBounds(view: DataView, at: number, length: number, what: string) {
  if (at < 0 || length < 0 || at + length > view.byteLength) fail(`${what} lies outside the archive`);
}

/** The zip64 extra field's values, in the order the format defines, for the 32-bit fields that are saturated. */
function zip64Extra(view: DataView, start: number, length: number, wanted: readonly boolean[], what: string): number[] {
  let p = start;
  const end = start + length;
  let found: number[] | null = null;
  while (p < end) {
    if (p + 4 > end) fail(`${what}: a truncated extra field`);
    const id = view.getUint16(p, true);
    const size = view.getUint16(p + 2, true);
    if (p + 4 + size > end) fail(`${what}: an extra field runs past its header`);
    if (id === ZIP64_EXTRA) {
      if (found) fail(`${what}: two zip64 extra fields`);
      const count = wanted.filter(Boolean).length;
      // The disk-number field (4 bytes) may follow the three 8-byte sizes; it is never needed here.
      if (size < count * 8) fail(`${what}: the zip64 extra field is too short`);
      found = [];
      for (let i = 0; i < count; i++) found.push(u64(view, p + 4 + i * 8));
    }
    p += 4 + size;
  }
  if (wanted.some(Boolean) && !found) fail(`${what}: saturated sizes without a zip64 extra field`);
  return found ?? [];
}

function findEocd(view: DataView): number {
  const last = view.byteLength - 22;
  const first = Math.max(0, last - U16_MAX);
  for (let at = last; at >= first; at--) {
    // The record's comment must end exactly where the archive ends.
    if (view.getUint32(at, true) === SIG_EOCD && at + 22 + view.getUint16(at + 20, true) === view.byteLength) return at;
  }
  return fail("no end-of-central-directory record (not a ZIP archive, or truncated)");
}

interface Directory {
  count: number;
  offset: number;
  size: number;
  /** Where the central directory must end: the zip64 record if there is one, else the EOCD record. */
  end: number;
}

function readDirectory(view: DataView): Directory {
  if (view.byteLength < 22) fail("too short to be a ZIP archive");
  const eocd = findEocd(view);
  if (view.getUint16(eocd + 4, true) !== 0 || view.getUint16(eocd + 6, true) !== 0) fail("a multi-disk archive");
  const onDisk = view.getUint16(eocd + 8, true);
  let count = view.getUint16(eocd + 10, true);
  let size = view.getUint32(eocd + 12, true);
  let offset = view.getUint32(eocd + 16, true);
  if (onDisk !== count) fail("the end record's entry counts disagree");
  let end = eocd;
  const locator = eocd - 20;
  if (locator >= 0 && view.getUint32(locator, true) === SIG_ZIP64_LOCATOR) {
    if (view.getUint32(locator + 4, true) !== 0 || view.getUint32(locator + 16, true) !== 1)
      fail("a multi-disk zip64 archive");
    const record = u64(view, locator + 8);
    inBounds(view, record, 56, "the zip64 end record");
    if (view.getUint32(record, true) !== SIG_ZIP64_EOCD) fail("the zip64 locator points at no zip64 end record");
    if (record + 12 + u64(view, record + 4) !== locator) fail("the zip64 end record's size is inconsistent");
    if (view.getUint32(record + 16, true) !== 0 || view.getUint32(record + 20, true) !== 0)
      fail("a multi-disk zip64 archive");
    const count64 = u64(view, record + 32);
    if (u64(view, record + 24) !== count64) fail("the zip64 end record's entry counts disagree");
    const size64 = u64(view, record + 40);
    const offset64 = u64(view, record + 48);
    // A 16- or 32-bit field that is not saturated must tell the same as its 64-bit twin.
    if (
      (count !== U16_MAX && count !== count64) ||
      (size !== U32_MAX && size !== size64) ||
      (offset !== U32_MAX && offset !== offset64)
    ) {
      fail("the end record and the zip64 end record disagree");
    }
    count = count64;
    size = size64;
    offset = offset64;
    end = record;
  } else if (count === U16_MAX || size === U32_MAX || offset === U32_MAX) {
    fail("saturated end record without a zip64 end record");
  }
  if (offset + size !== end) fail("the central directory does not end where the end record starts");
  if (count * 46 > size) fail("the central directory is too small for its entry count");
  return { count, offset, size, end };
}

function readEntries(view: DataView, bytes: Uint8Array, dir: Directory): ZipEntry[] {
  const decoder = new TextDecoder();
  const entries: ZipEntry[] = [];
  const names = new Set<string>();
  let p = dir.offset;
  for (let i = 0; i < dir.count; i++) {
    const what = `central directory entry ${i + 1}`;
    if (p + 46 > dir.end || view.getUint32(p, true) !== SIG_CENTRAL) fail(`${what} is missing or truncated`);
    const flags = view.getUint16(p + 8, true);
    const method = view.getUint16(p + 10, true);
    const crc32 = view.getUint32(p + 16, true);
    let compressedSize = view.getUint32(p + 20, true);
    let inflatedSize = view.getUint32(p + 24, true);
    const nameLength = view.getUint16(p + 28, true);
    const extraLength = view.getUint16(p + 30, true);
    const commentLength = view.getUint16(p + 32, true);
    const disk = view.getUint16(p + 34, true);
    let localHeaderOffset = view.getUint32(p + 42, true);
    const next = p + 46 + nameLength + extraLength + commentLength;
    if (next > dir.end) fail(`${what} runs past the central directory`);
    const nameBytes = bytes.subarray(p + 46, p + 46 + nameLength);
    const name = decoder.decode(nameBytes);
    const saturated = [inflatedSize === U32_MAX, compressedSize === U32_MAX, localHeaderOffset === U32_MAX];
    const wide = zip64Extra(view, p + 46 + nameLength, extraLength, saturated, what);
    let k = 0;
    if (saturated[0]) inflatedSize = wide[k++]!;
    if (saturated[1]) compressedSize = wide[k++]!;
    if (saturated[2]) localHeaderOffset = wide[k++]!;
    if (disk !== 0 && disk !== U16_MAX) fail(`${what} lives on another disk`);
    if (nameLength === 0) fail(`${what} has no name`);
    if (names.has(name)) fail(`two entries are named ${JSON.stringify(name)}`);
    names.add(name);
    if (flags & 0x0001) fail(`${JSON.stringify(name)} is encrypted`);
    if (method !== 0 && method !== 8)
      fail(`${JSON.stringify(name)} uses compression method ${method} (only stored and deflated are read)`);
    if (method === 0 && compressedSize !== inflatedSize)
      fail(`${JSON.stringify(name)} is stored but its two sizes differ`);
    const dataOffset = checkLocalHeader(view, bytes, {
      name,
      nameBytes,
      flags,
      method,
      crc32,
      compressedSize,
      inflatedSize,
      localHeaderOffset,
    });
    if (dataOffset + compressedSize > dir.offset)
      fail(`${JSON.stringify(name)}'s data runs into the central directory`);
    entries.push({ name, method, flags, crc32, compressedSize, inflatedSize, localHeaderOffset, dataOffset });
    p = next;
  }
  if (p !== dir.offset + dir.size) fail("the central directory's size does not match its entries");
  // No two entries may share bytes: overlapping entries let a small archive declare the same data many times.
  const byOffset = [...entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  for (let i = 1; i < byOffset.length; i++) {
    const before = byOffset[i - 1]!;
    if (byOffset[i]!.localHeaderOffset < before.dataOffset + before.compressedSize) {
      fail(`${JSON.stringify(byOffset[i]!.name)} overlaps ${JSON.stringify(before.name)}`);
    }
  }
  return entries;
}

/** The local header must repeat the central directory's name, method and sizes. Returns where the data starts. */
function checkLocalHeader(
  view: DataView,
  bytes: Uint8Array,
  cd: {
    name: string;
    nameBytes: Uint8Array;
    flags: number;
    method: number;
    crc32: number;
    compressedSize: number;
    inflatedSize: number;
    localHeaderOffset: number;
  },
): number {
  const what = `the local header of ${JSON.stringify(cd.name)}`;
  const at = cd.localHeaderOffset;
  inBounds(view, at, 30, what);
  if (view.getUint32(at, true) !== SIG_LOCAL) fail(`${what} is missing`);
  const flags = view.getUint16(at + 6, true);
  const method = view.getUint16(at + 8, true);
  const crc32 = view.getUint32(at + 14, true);
  let compressedSize = view.getUint32(at + 18, true);
  let inflatedSize = view.getUint32(at + 22, true);
  const nameLength = view.getUint16(at + 26, true);
  const extraLength = view.getUint16(at + 28, true);
  inBounds(view, at + 30, nameLength + extraLength, what);
  const name = bytes.subarray(at + 30, at + 30 + nameLength);
  if (name.length !== cd.nameBytes.length || name.some((b, i) => b !== cd.nameBytes[i]))
    fail(`${what} names another file`);
  if (method !== cd.method) fail(`${what} disagrees on the compression method`);
  if ((flags & 0x0001) !== 0) fail(`${JSON.stringify(cd.name)} is encrypted`);
  // A local zip64 extra field, when present, carries both sizes (inflated first).
  if (inflatedSize === U32_MAX || compressedSize === U32_MAX) {
    const wide = zip64Extra(view, at + 30 + nameLength, extraLength, [true, true], what);
    inflatedSize = wide[0]!;
    compressedSize = wide[1]!;
  } else {
    zip64Extra(view, at + 30 + nameLength, extraLength, [], what); // the extra fields must at least be well formed
  }
  // With a data descriptor (flag bit 3) the local header may leave the CRC and sizes at zero, each on its own.
  const deferred = (flags & 0x0008) !== 0;
  const agrees = (local: number, central: number) => local === central || (deferred && local === 0);
  if (
    !agrees(crc32, cd.crc32) ||
    !agrees(compressedSize, cd.compressedSize) ||
    !agrees(inflatedSize, cd.inflatedSize)
  ) {
    fail(`${what} and the central directory disagree on its sizes or checksum`);
  }
  const dataOffset = at + 30 + nameLength + extraLength;
  inBounds(view, dataOffset, cd.compressedSize, `the data of ${JSON.stringify(cd.name)}`);
  return dataOffset;
}

/** Reads and cross-checks the archive's records, then holds what its entries declare to `bounds`. */
export function inspectZip(bytes: Uint8Array, bounds: ZipBounds = DOCX_BOUNDS): ZipVerdict {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let entries: ZipEntry[];
  try {
    entries = readEntries(view, bytes, readDirectory(view));
  } catch (err) {
    if (err instanceof Malformed) return { ok: false, kind: "malformed", reason: err.message };
    throw err;
  }
  let totalInflated = 0;
  for (const entry of entries) {
    totalInflated += entry.inflatedSize;
    if (entry.inflatedSize > bounds.ratioGraceBytes && entry.inflatedSize > bounds.maxRatio * entry.compressedSize) {
      const ratio = entry.compressedSize === 0 ? "∞" : Math.round(entry.inflatedSize / entry.compressedSize);
      return {
        ok: false,
        kind: "too-large",
        reason: `${JSON.stringify(entry.name)} inflates ${ratio}:1 (${entry.inflatedSize} bytes from ${entry.compressedSize}), past the ${bounds.maxRatio}:1 limit`,
      };
    }
  }
  if (totalInflated > bounds.maxTotalInflated) {
    return {
      ok: false,
      kind: "too-large",
      reason: `its entries inflate to ${totalInflated} bytes in all, past the limit of ${bounds.maxTotalInflated} bytes (${bounds.maxTotalInflated / MiB} MiB)`,
    };
  }
  return { ok: true, entries, totalInflated };
}
