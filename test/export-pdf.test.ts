import { env } from "cloudflare:test";
import { PDFDocument } from "pdf-lib";
import { beforeAll, describe, expect, it } from "vitest";
import { buildDocx, buildDocxWithBrokenXml, buildRandomBytes, buildZipWithoutDocument } from "../converter/test/fixtures";
import { convertDocxToPdf } from "../src/services/converter/client";
import { ApiError } from "../src/errors";
import { call, expectError, seedTenant, type Tenant } from "./harness";

function b64(bytes: Uint8Array) {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
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
      const res = await call("POST", "/export/doc-to-pdf", { token: t.owner.token, body: { data: [{ documentId: t.docId, docx }] } });
      expectError(res, 400, "ValidationError");
    }
    expectError(await call("POST", "/export/doc-to-pdf", { token: t.owner.token, body: { data: [] } }), 400, "ValidationError");
    expectError(await call("POST", "/export/doc-to-pdf", { token: t.owner.token, body: {} }), 400, "ValidationError");
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
      body: { data: [{ documentId: t.docId, docx }, { documentId: "01NOSUCHDOCUMENT000000000", docx }] },
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
    expect((err as ApiError).status).toBe(503);
    const none = { ...env, CONVERTER_URL: undefined, PDF_CONVERTER: undefined };
    const err2 = await convertDocxToPdf(none, buildDocx()).catch((e: unknown) => e);
    expect((err2 as ApiError).status).toBe(503);
  });
});
