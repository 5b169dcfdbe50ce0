/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import {
  base64UrlDecode,
  base64UrlEncode,
  decodeBase64,
  encodeBase64,
  textFromBase64Url,
  textToBase64Url,
} from "../../src/lib/base64";
import { ifNoneMatchHits } from "../../src/http/portalHeaders";
import { etagListMatches } from "../../src/lib/etag";

const srcFiles = import.meta.glob("../../src/**/*.{ts,tsx}", {
  query: "?raw",
  import: "default",
  eager: true,
}) as Record<string, string>;

describe("one base64 helper", () => {
  it("encodes base64url without padding and decodes it with or without", () => {
    const bytes = new Uint8Array([0xfb, 0xff, 0xfe, 0x01]);
    expect(base64UrlEncode(bytes)).toBe("-__-AQ");
    expect([...base64UrlDecode("-__-AQ")!]).toEqual([...bytes]);
    expect([...base64UrlDecode("-__-AQ==")!]).toEqual([...bytes]);
    expect(encodeBase64(bytes)).toBe("+//+AQ==");
    expect([...decodeBase64("+//+AQ==")!]).toEqual([...bytes]);
  });

  it("answers null, not an exception, for text that is not base64url", () => {
    expect(base64UrlDecode("+//+")).toBeNull();
    expect(base64UrlDecode("a$b")).toBeNull();
    expect(textFromBase64Url("%%%")).toBeNull();
    expect(textFromBase64Url(textToBase64Url("12:01ABC"))).toBe("12:01ABC");
  });

  it("is the only base64 code: no btoa/atob or byte-to-char loops outside src/lib", () => {
    expect(Object.keys(srcFiles).length).toBeGreaterThan(100);
    const offenders = Object.entries(srcFiles)
      .filter(([path]) => !path.includes("/src/lib/"))
      // String.fromCharCode of bytes (spread, indexed or accumulated) is a base64 loop; of one code (the CHAR
      // function) it is not.
      .filter(([, text]) =>
        /\b(btoa|atob)\(|String\.fromCharCode\((\.\.\.|[^)]*\[)|\+=\s*String\.fromCharCode\(/.test(text),
      )
      .map(([path]) => path);
    expect(offenders).toEqual([]);
  });
});

describe("one If-None-Match matcher", () => {
  it("portal pages match the way JSON GETs do (weak comparison, lists, *)", () => {
    for (const [header, etag] of [
      ['"a"', '"a"'],
      ['W/"a"', '"a"'],
      ['"b", "a"', '"a"'],
      ["*", '"a"'],
      ['"b"', '"a"'],
    ] as const) {
      expect(ifNoneMatchHits(header, etag)).toBe(etagListMatches(header, etag));
    }
    expect(ifNoneMatchHits(undefined, '"a"')).toBe(false);
  });
});
