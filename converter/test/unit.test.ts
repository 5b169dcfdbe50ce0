// Fast checks that need no LibreOffice.
import { describe, expect, it } from "vitest";
import { MiB, optionsFromEnv, timeoutFor } from "../src/config.ts";
import { crc32, deflateRawSync } from "node:zlib";
import { strToU8, Zip, ZipDeflate } from "fflate";
import { checkDocx, checkInflatedSizes, inspectDocx } from "../src/docx.ts";
import { DOCX_BOUNDS, inspectZip } from "../src/zip.ts";
import {
  buildDocx,
  buildDocxBomb,
  buildDocxWithBrokenXml,
  buildLyingDocx,
  buildRandomBytes,
  buildZipWithoutDocument,
  writeZip,
  type RawZipEntry,
} from "./fixtures.ts";

describe("configuration", () => {
  it("uses the documented defaults", () => {
    const o = optionsFromEnv({});
    expect(o).toMatchObject({
      port: 8788,
      host: "127.0.0.1",
      secret: undefined,
      queueLimit: 16,
      maxBodyBytes: 64 * MiB,
      timeoutMs: 20_000,
      timeoutPerMiBMs: 10_000,
      maxConversions: 200,
      pythonPath: "/usr/bin/python3",
    });
    expect(o.poolSize).toBeGreaterThanOrEqual(1);
    expect(o.unoWorkerPath).toMatch(/uno_worker\.py$/);
  });

  it("reads and validates environment variables", () => {
    const o = optionsFromEnv({
      PORT: "9000",
      CONVERTER_POOL_SIZE: "3",
      CONVERTER_SECRET: "s",
      CONVERTER_TIMEOUT_MS: "1500",
    });
    expect(o).toMatchObject({ port: 9000, poolSize: 3, secret: "s", timeoutMs: 1500 });
    expect(() => optionsFromEnv({ CONVERTER_POOL_SIZE: "0" })).toThrow(/CONVERTER_POOL_SIZE/);
    expect(() => optionsFromEnv({ CONVERTER_QUEUE_LIMIT: "many" })).toThrow(/CONVERTER_QUEUE_LIMIT/);
  });

  it("scales the conversion timeout with the input size", () => {
    expect(timeoutFor({ timeoutMs: 20_000, timeoutPerMiBMs: 10_000 }, 0)).toBe(20_000);
    expect(timeoutFor({ timeoutMs: 20_000, timeoutPerMiBMs: 10_000 }, 3 * MiB)).toBe(50_000);
  });
});

describe("DOCX pre-check", () => {
  it("accepts generated DOCX files and leaves content errors to LibreOffice", () => {
    expect(checkDocx(buildDocx())).toBeUndefined();
    expect(checkDocx(buildDocx({ pages: 40, withTable: true, withHeading: true }))).toBeUndefined();
    expect(checkDocx(buildDocxWithBrokenXml())).toBeUndefined();
  });

  it("rejects what is clearly not a DOCX with a 422", () => {
    const ole = new Uint8Array(64);
    ole.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    for (const [bytes, code] of [
      [new Uint8Array(0), "EMPTY_BODY"],
      [buildRandomBytes(), "INVALID_DOCX"],
      [buildZipWithoutDocument(), "INVALID_DOCX"],
      [buildDocx().subarray(0, 500), "INVALID_DOCX"],
      [ole, "UNSUPPORTED_FORMAT"],
    ] as const) {
      const err = checkDocx(bytes);
      expect(err?.status).toBe(422);
      expect(err?.code).toBe(code);
      expect(err?.toJSON()).toMatchObject({ error: "UnprocessableEntityError" });
    }
  });
});

function entry(name: string, text: string, method: 0 | 8 = 8): RawZipEntry {
  const bytes = new TextEncoder().encode(text);
  return {
    name,
    method,
    crc: crc32(bytes),
    data: method === 8 ? deflateRawSync(bytes) : bytes,
    inflatedSize: bytes.length,
  };
}

const smallDocx = [
  entry("[Content_Types].xml", "<Types/>"),
  entry("word/document.xml", "<w:document><w:body><w:p/></w:body></w:document>"),
  entry("readme.txt", "stored, not deflated", 0),
];

describe("ZIP bounds (read from the central directory, zip64 included)", () => {
  it("accepts real DOCX files, in plain and in zip64 form, with or without data descriptors", async () => {
    for (const bytes of [
      buildDocx(),
      buildDocx({ pages: 3000 }),
      writeZip(smallDocx),
      writeZip(smallDocx, { zip64: true }),
    ]) {
      const zip = inspectZip(bytes);
      expect(zip.ok, JSON.stringify(zip)).toBe(true);
    }
    // Streaming writers leave the local CRC and sizes at zero and put them in a data descriptor (flag bit 3).
    const streamed: Uint8Array[] = [];
    const writer = new Zip((err, chunk) => {
      if (err) throw err;
      streamed.push(chunk);
    });
    for (const e of smallDocx) {
      const file = new ZipDeflate(e.name, { level: 6 });
      writer.add(file);
      file.push(strToU8(e.name), true);
    }
    writer.end();
    const withDescriptors = new Uint8Array(Buffer.concat(streamed));
    expect(new DataView(withDescriptors.buffer).getUint16(6, true) & 0x0008).toBe(0x0008);
    expect(inspectZip(withDescriptors).ok).toBe(true);
    const described = inspectDocx(withDescriptors);
    expect("entries" in described && (await checkInflatedSizes(withDescriptors, described.entries))).toBeUndefined();

    const zip64 = inspectZip(writeZip(smallDocx, { zip64: true }));
    expect(zip64.ok && zip64.entries.map((e) => [e.name, e.inflatedSize])).toEqual(
      smallDocx.map((e) => [e.name, e.inflatedSize]),
    );
  });

  it("refuses the 650 MB bomb by its declared sizes, plain or zip64, without inflating it", () => {
    for (const zip64 of [false, true]) {
      const bomb = buildDocxBomb({ zip64 });
      expect(bomb.length).toBeLessThan(3 * 1024 * 1024);
      const started = performance.now();
      const zip = inspectZip(bomb);
      expect(performance.now() - started).toBeLessThan(100);
      expect(zip).toMatchObject({ ok: false, kind: "too-large" });
      expect(!zip.ok && zip.reason).toMatch(/word\/document\.xml.*past the 100:1 limit/);
      expect(checkDocx(bomb)).toMatchObject({ status: 413, code: "INFLATED_TOO_LARGE" });
    }
  });

  it("refuses archives that inflate past 100 MiB in all, whatever the ratio", () => {
    const bomb = buildDocxBomb({ inflatedBytes: 150 * MiB });
    const zip = inspectZip(bomb, { ...DOCX_BOUNDS, maxRatio: 10_000 });
    expect(zip).toMatchObject({ ok: false, kind: "too-large" });
    expect(!zip.ok && zip.reason).toMatch(/past the limit of 104857600 bytes/);
  });

  it("refuses archives whose records contradict each other", () => {
    const saturated = writeZip(smallDocx);
    new DataView(saturated.buffer).setUint16(saturated.length - 12, 0xffff, true); // EOCD entry count, no zip64 record
    const cases: Array<[string, Uint8Array, RegExp]> = [
      ["central directory lies about the inflated size", buildDocxBomb({ lie: "central" }), /disagree on its sizes/],
      ["two entries with one name", writeZip([...smallDocx, smallDocx[1]!]), /two entries are named/],
      ["saturated end record without zip64", saturated, /disagree|saturated end record/],
      ["truncated", buildDocx().subarray(0, 1500), /no end-of-central-directory/],
      [
        "stored entry with two sizes",
        writeZip([entry("a.txt", "abc", 0)], { centralSize: { "a.txt": 4 }, localSize: { "a.txt": 4 } }),
        /stored but its two sizes differ/,
      ],
    ];
    for (const [name, bytes, reason] of cases) {
      const zip = inspectZip(bytes);
      expect(zip, name).toMatchObject({ ok: false, kind: "malformed" });
      expect(!zip.ok && zip.reason, name).toMatch(reason);
      expect(checkDocx(bytes)?.status, name).toBe(422);
    }
  });

  it("refuses entries that overlap (one archive byte range counted twice)", () => {
    const inner = writeZip([entry("word/document.xml", "<w:document/>")]);
    const innerLocal = inner.subarray(
      0,
      30 + "word/document.xml".length + deflateRawSync(new TextEncoder().encode("<w:document/>")).length,
    );
    // Entry "outer" stores the inner entry's local header and data; a second directory entry points inside it.
    const outer: RawZipEntry = {
      name: "outer.bin",
      method: 0,
      crc: crc32(innerLocal),
      data: innerLocal,
      inflatedSize: innerLocal.length,
    };
    const two = writeZip([outer, entry("word/document.xml", "<w:document/>")]);
    const view = new DataView(two.buffer);
    const cdOffset = view.getUint32(two.length - 6, true);
    const secondCd = cdOffset + 46 + "outer.bin".length;
    view.setUint32(secondCd + 42, 30 + "outer.bin".length, true); // point the second entry into the first one's data
    const zip = inspectZip(two);
    expect(zip).toMatchObject({ ok: false, kind: "malformed" });
    expect(!zip.ok && zip.reason).toMatch(/overlaps/);
  });

  it("never throws on damaged archives: every mutation gets a verdict", async () => {
    const seeds = [buildDocx({ withTable: true }), writeZip(smallDocx, { zip64: true })];
    let x = 12345;
    const rand = (n: number) => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) % n;
    };
    const kinds = new Set<string>();
    for (let round = 0; round < 3000; round++) {
      const bytes = seeds[round % 2]!.slice();
      // Damage the records rather than the compressed data: most rounds hit the tail (central directory, end records).
      for (let k = 1 + rand(4); k > 0; k--) {
        const at = rand(2) ? bytes.length - 1 - rand(Math.min(bytes.length, 400)) : rand(bytes.length);
        bytes[at] = rand(3) === 0 ? 0xff : rand(256);
      }
      const inspected = inspectDocx(bytes);
      kinds.add("error" in inspected ? String(inspected.error.status) : "ok");
      if ("entries" in inspected) await checkInflatedSizes(bytes, inspected.entries);
    }
    expect(kinds.has("422")).toBe(true);
  });

  it("inflates each entry (bounded by its declared size) and refuses one that gives more, or a wrong CRC", async () => {
    const docx = buildDocx({ pages: 3 });
    const ok = inspectDocx(docx);
    expect("entries" in ok && (await checkInflatedSizes(docx, ok.entries))).toBeUndefined();

    const liar = buildDocxBomb({ lie: "both" });
    const inspected = inspectDocx(liar);
    expect("entries" in inspected).toBe(true); // consistent headers, within the bounds: only inflating shows the lie
    const started = performance.now();
    const err = "entries" in inspected ? await checkInflatedSizes(liar, inspected.entries) : undefined;
    expect(err).toMatchObject({ status: 422, code: "INVALID_DOCX" });
    expect(err?.message).toMatch(/word\/document\.xml" inflates past the \d+ bytes its headers declare/);
    expect(performance.now() - started).toBeLessThan(5000);

    const badCrc = writeZip([{ ...smallDocx[1]!, crc: smallDocx[1]!.crc ^ 1 }]);
    const crcInspected = inspectDocx(badCrc);
    const crcErr = "entries" in crcInspected ? await checkInflatedSizes(badCrc, crcInspected.entries) : undefined;
    expect(crcErr?.message).toMatch(/CRC-32/);
  });

  it("refuses finding 8's DOCX (both headers declare 900,000 bytes) that inflates to far more or to fewer, worded as the Worker words it", async () => {
    for (const [bytes, message] of [
      [
        buildLyingDocx({ inflatedBytes: 64 * MiB }),
        /"word\/document\.xml" inflates past the 900000 bytes its headers declare/,
      ],
      [
        buildLyingDocx({ inflatedBytes: 100_000 }),
        /"word\/document\.xml" inflates to 100000 bytes, not the 900000 its headers declare/,
      ],
    ] as const) {
      const inspected = inspectDocx(bytes);
      expect("entries" in inspected).toBe(true); // the declared sizes pass every bound
      const started = performance.now();
      const err = "entries" in inspected ? await checkInflatedSizes(bytes, inspected.entries) : undefined;
      expect(performance.now() - started).toBeLessThan(1000);
      expect(err).toMatchObject({ status: 422, code: "INVALID_DOCX" });
      expect(err?.message).toMatch(message);
    }
  });
});
