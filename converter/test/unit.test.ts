// Fast checks that need no LibreOffice.
import { describe, expect, it } from "vitest";
import { MiB, optionsFromEnv, timeoutFor } from "../src/config.ts";
import { checkDocx } from "../src/docx.ts";
import { buildDocx, buildDocxWithBrokenXml, buildRandomBytes, buildZipWithoutDocument } from "./fixtures.ts";

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
    const o = optionsFromEnv({ PORT: "9000", CONVERTER_POOL_SIZE: "3", CONVERTER_SECRET: "s", CONVERTER_TIMEOUT_MS: "1500" });
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
