import { env } from "cloudflare:test";
import { unzipSync, zipSync } from "fflate";
import { PDFDocument } from "pdf-lib";
import { beforeAll, describe, expect, it } from "vitest";
import {
  buildDocx,
  buildDocxBomb,
  buildDocxWithBrokenXml,
  buildLyingDocx,
  buildRandomBytes,
  buildZipWithoutDocument,
} from "../../../converter/test/fixtures";
import { convertDocxToPdf } from "../../../src/services/converter/client";
import { ApiError } from "../../../src/errors";
import { errorStatus } from "../../../src/http/errors";
import { call, expectError, seedTenant, type Tenant } from "../../support/harness";

function b64(bytes: Uint8Array) {
  let bin = "";
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) bin += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(bin);
}
function unb64(s: string) {
  return Uint8Array.from(atob(s), (ch) => ch.charCodeAt(0));
}

describe("E6 POST /export/doc-to-pdf (real converter, real LibreOffice)", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
  });

  it("converts several DOCX files in parallel and answers in request order", async () => {
    const res = await call("POST", "/export/doc-to-pdf", {
      token: t.viewer.token,
      body: {
        data: [
          { documentId: t.docId, docx: b64(buildDocx({ pages: 3, withTable: true, withHeading: true })) },
          { documentId: t.doc2Id, docx: b64(buildDocx({ pages: 1 })) },
          { documentId: t.docId, docx: b64(buildDocx({ pages: 2 })) },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    expect(Object.keys(res.body)).toEqual(["pdfDocuments"]);
    const docs = res.body.pdfDocuments as { documentId: string; pdf: string }[];
    expect(docs.map((d) => d.documentId)).toEqual([t.docId, t.doc2Id, t.docId]);
    const pages = [];
    for (const d of docs) {
      const bytes = unb64(d.pdf);
      expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe("%PDF-");
      pages.push((await PDFDocument.load(bytes)).getPageCount());
    }
    expect(pages).toEqual([3, 1, 2]);
  });

  it("answers 400 for bad base64 and for bytes that are not a DOCX", async () => {
    for (const docx of ["not base64!!", b64(buildRandomBytes(2048)), b64(buildZipWithoutDocument())]) {
      const res = await call("POST", "/export/doc-to-pdf", {
        token: t.owner.token,
        body: { data: [{ documentId: t.docId, docx }] },
      });
      expectError(res, 400, "ValidationError");
    }
    expectError(
      await call("POST", "/export/doc-to-pdf", { token: t.owner.token, body: { data: [] } }),
      400,
      "ValidationError",
    );
    expectError(await call("POST", "/export/doc-to-pdf", { token: t.owner.token, body: {} }), 400, "ValidationError");
  });

  it("answers 413 before any conversion for a DOCX whose document.xml inflates to 650 MB, plain or zip64, sent three times", async () => {
    for (const zip64 of [false, true]) {
      const docx = b64(buildDocxBomb({ zip64 }));
      const started = Date.now();
      const res = await call("POST", "/export/doc-to-pdf", {
        token: t.owner.token,
        body: { data: [0, 1, 2].map(() => ({ documentId: t.docId, docx })) },
      });
      expectError(res, 413, "PayloadTooLargeError");
      // The Worker's own refusal (it names the body member), not the converter's.
      expect(res.body.message).toMatch(
        /^data\.0\.docx is refused before conversion: "word\/document\.xml" inflates \d+:1/,
      );
      expect(res.body.details).toEqual([
        { path: "data.0.docx", message: expect.stringMatching(/past the 100:1 limit/) },
      ]);
      expect(Date.now() - started).toBeLessThan(5000);
    }
  });

  it("answers 400 for an archive whose central directory lies about the inflated size, 422 when both headers lie", async () => {
    const central = await call("POST", "/export/doc-to-pdf", {
      token: t.owner.token,
      body: { data: [{ documentId: t.docId, docx: b64(buildDocxBomb({ lie: "central" })) }] },
    });
    expectError(central, 400, "ValidationError");
    expect(central.body.message).toMatch(/disagree on its sizes/);
    // Consistent headers within the bounds: only inflating shows the lie, which the converter does before LibreOffice.
    const both = await call("POST", "/export/doc-to-pdf", {
      token: t.owner.token,
      body: { data: [{ documentId: t.docId, docx: b64(buildDocxBomb({ lie: "both", zip64: true })) }] },
    });
    expectError(both, 422, "UnprocessableEntityError");
    expect(both.body.message).toMatch(/inflates past the \d+ bytes its headers declare/);
  });

  it("answers 422 quickly for finding 8's DOCX (both headers declare 900,000 bytes) that inflates to far more or to fewer", async () => {
    for (const [bytes, message] of [
      [buildLyingDocx({ inflatedBytes: 64 * 1024 * 1024 }), /inflates past the 900000 bytes its headers declare/],
      [buildLyingDocx({ inflatedBytes: 100_000 }), /inflates to 100000 bytes, not the 900000 its headers declare/],
    ] as const) {
      const started = performance.now();
      const res = await call("POST", "/export/doc-to-pdf", {
        token: t.owner.token,
        body: { data: [{ documentId: t.docId, docx: b64(bytes) }] },
      });
      expectError(res, 422, "UnprocessableEntityError");
      expect(res.body.message).toMatch(message);
      expect(performance.now() - started).toBeLessThan(2000);
    }
  });

  it("decodes base64 bodies far past 4 MB, up to the 64 MiB limit: a 47 MiB DOCX converts", async () => {
    const parts = unzipSync(buildDocx({ pages: 2 }));
    const big = zipSync({ ...parts, "word/media/filler.bin": [buildRandomBytes(47 * 1024 * 1024), { level: 0 }] });
    const docx = b64(big);
    expect(docx.length).toBeGreaterThan(62 * 1024 * 1024);
    // Line-wrapped base64 (as MIME tools write it) decodes the same.
    const wrapped = docx.slice(0, 76) + "\r\n" + docx.slice(76);
    const res = await call("POST", "/export/doc-to-pdf", {
      token: t.owner.token,
      body: { data: [{ documentId: t.docId, docx: wrapped }] },
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    const pdf = unb64(res.body.pdfDocuments[0].pdf);
    expect((await PDFDocument.load(pdf)).getPageCount()).toBe(2);
  });

  it("answers 400 for bad base64 of any size: a stray character deep inside a 10 MB body, or missing padding", async () => {
    const docx = b64(
      zipSync({
        ...unzipSync(buildDocx()),
        "word/media/filler.bin": [buildRandomBytes(10 * 1024 * 1024), { level: 0 }],
      }),
    );
    const whole = docx.slice(0, docx.length - (docx.length % 4) - 4); // complete 4-character groups, no padding
    for (const bad of [`${docx.slice(0, 8_000_000)}!${docx.slice(8_000_001)}`, `${whole}QUI`, `${whole}Q===`]) {
      const res = await call("POST", "/export/doc-to-pdf", {
        token: t.owner.token,
        body: { data: [{ documentId: t.docId, docx: bad }] },
      });
      expectError(res, 400, "ValidationError");
      expect(res.body.message).toBe("data.0.docx is not valid base64");
    }
  });

  it("answers 403 with nothing converted when any document is unreadable or missing", async () => {
    const docx = b64(buildDocx());
    const mixed = await call("POST", "/export/doc-to-pdf", {
      token: t.outsider.token,
      body: { data: [{ documentId: t.outsider.workspaceId, docx }] },
    });
    expectError(mixed, 403, "ForbiddenError");
    const partly = await call("POST", "/export/doc-to-pdf", {
      token: t.owner.token,
      body: {
        data: [
          { documentId: t.docId, docx },
          { documentId: "01NOSUCHDOCUMENT000000000", docx },
        ],
      },
    });
    expectError(partly, 403, "ForbiddenError");
    expect(partly.body.pdfDocuments).toBeUndefined();
  });

  it("answers 422 for a DOCX the office suite cannot read", async () => {
    const res = await call("POST", "/export/doc-to-pdf", {
      token: t.owner.token,
      body: { data: [{ documentId: t.docId, docx: b64(buildDocxWithBrokenXml()) }] },
    });
    expectError(res, 422, "UnprocessableEntityError");
  });

  it("maps an unreachable converter to 503 ServiceUnavailableError", async () => {
    const down = { ...env, CONVERTER_URL: "http://127.0.0.1:9" };
    const err = await convertDocxToPdf(down, buildDocx()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe("ServiceUnavailableError");
    expect(errorStatus[(err as ApiError).code]).toBe(503);
    const none = { ...env, CONVERTER_URL: undefined, PDF_CONVERTER: undefined };
    const err2 = await convertDocxToPdf(none, buildDocx()).catch((e: unknown) => e);
    expect(errorStatus[(err2 as ApiError).code]).toBe(503);
  });
});
