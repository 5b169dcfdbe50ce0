import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";

/**
 * LibreOffice Calc as a differential oracle for the formula engine (test/services/formula/calc-oracle.test.ts): a loopback
 * server whose `POST /evaluate` `{ formulas: string[] }` (Excel syntax, without the leading `=`) answers
 * `{ values }`, each a number, text, boolean or `{ error }`, in order.
 *
 * All formulas of a request go through ONE headless Calc run: they are written as the cells of a flat ODF
 * spreadsheet in Excel's own formula syntax (the `msoxl:` namespace, which Calc reads as OOXML formulas, so
 * `,` separates arguments and `{1,2;3,4}` is an array), recalculated on load, and converted to CSV with the
 * raw values. The document asks for Excel's calculation settings (case-insensitive text, wildcards in lookups
 * and SEARCH, criteria matching whole cells), since ODF's defaults differ. Nothing starts until a request comes, so runs that do not test formulas pay nothing. Calc's own
 * error codes map to Excel's as its OOXML export maps them (Err:502 is #NUM!, other Err:5xx #VALUE!).
 */
export async function startCalcOracle(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/evaluate") {
        res.writeHead(404).end();
        return;
      }
      const { formulas } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { formulas: string[] };
      evaluateInCalc(formulas).then(
        (values) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ values })),
        (err: Error) =>
          res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: err.message })),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Functions Excel files name with the `_xlfn.` prefix (added after Excel 2007); dotted names always are. */
const XLFN = new Set([
  "AGGREGATE",
  "ARABIC",
  "BASE",
  "BITAND",
  "BITLSHIFT",
  "BITOR",
  "BITRSHIFT",
  "BITXOR",
  "COMBINA",
  "CONCAT",
  "COT",
  "COTH",
  "CSC",
  "CSCH",
  "DAYS",
  "DECIMAL",
  "FILTER",
  "FORMULATEXT",
  "GAMMA",
  "GAUSS",
  "IFNA",
  "IFS",
  "ISFORMULA",
  "ISOWEEKNUM",
  "LET",
  "MAXIFS",
  "MINIFS",
  "NUMBERVALUE",
  "PDURATION",
  "PERMUTATIONA",
  "PHI",
  "RANDARRAY",
  "RRI",
  "SEC",
  "SECH",
  "SEQUENCE",
  "SHEET",
  "SHEETS",
  "SORT",
  "SORTBY",
  "SWITCH",
  "TEXTAFTER",
  "TEXTBEFORE",
  "TEXTJOIN",
  "TEXTSPLIT",
  "UNICHAR",
  "UNICODE",
  "UNIQUE",
  "XLOOKUP",
  "XMATCH",
  "XOR",
  "ACOT",
  "ACOTH",
]);

/** The formula in OOXML's stored form: newer functions prefixed `_xlfn.` (names outside strings only). */
export function toOoxmlFormula(text: string): string {
  return text.replace(/"(?:[^"]|"")*"|[A-Za-z_][A-Za-z0-9_.]*(?=\s*\()/g, (m) => {
    if (m.startsWith('"')) return m;
    const upper = m.toUpperCase();
    return upper.includes(".") || XLFN.has(upper) ? `_xlfn.${upper}` : m;
  });
}

const xml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function fods(formulas: string[]): string {
  const rows = formulas.map(
    (f) => `<table:table-row><table:table-cell table:formula="msoxl:=${xml(toOoxmlFormula(f))}"/></table:table-row>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:msoxl="http://schemas.microsoft.com/office/excel/formula" office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
<office:body><office:spreadsheet>
<table:calculation-settings table:case-sensitive="false" table:search-criteria-must-apply-to-whole-cell="true" table:use-wildcards="true" table:use-regular-expressions="false" table:automatic-find-labels="false"/>
<table:table table:name="Corpus">
${rows.join("\n")}
</table:table></office:spreadsheet></office:body></office:document>
`;
}

/** One CSV line per row; fields quoted when text. */
function parseCsvRows(csv: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < csv.length) {
    let field = "";
    if (csv[i] === '"') {
      i++;
      for (;;) {
        const j = csv.indexOf('"', i);
        if (j < 0) throw new Error("unterminated CSV field");
        field += csv.slice(i, j);
        if (csv[j + 1] === '"') {
          field += '"';
          i = j + 2;
        } else {
          i = j + 1;
          break;
        }
      }
      out.push(`"${field}`);
    } else {
      const j = csv.indexOf("\n", i);
      field = csv.slice(i, j < 0 ? csv.length : j).replace(/\r$/, "");
      out.push(field);
      i = j < 0 ? csv.length : j;
    }
    while (i < csv.length && csv[i] !== "\n") i++; // the rest of the row (one column only)
    i++;
  }
  return out;
}

const EXCEL_ERRORS = new Set(["#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#CALC!"]);

function cellValue(field: string): unknown {
  if (field.startsWith('"')) {
    const text = field.slice(1);
    if (EXCEL_ERRORS.has(text)) return { error: text };
    const err = /^Err:(\d{3})$/.exec(text);
    if (err) return { error: err[1] === "502" ? "#NUM!" : err[1] === "532" ? "#DIV/0!" : "#VALUE!" };
    return text;
  }
  if (field === "") return null;
  if (field === "TRUE" || field === "FALSE") return field === "TRUE";
  const n = Number(field);
  return Number.isNaN(n) ? formattedNumber(field) : n;
}

/**
 * An unquoted field is a number cell, but Calc writes it in the format it gave the result (a percent for RATE,
 * a date for DATE(…)+1, a time for TIME): read back to the number (serials in the 1900 date system).
 */
function formattedNumber(field: string): unknown {
  const pct = /^(-?[\d.]+(?:E[+-]?\d+)?)%$/i.exec(field);
  if (pct) return Number(pct[1]) / 100;
  const m = /^(?:(\d{2})\/(\d{2})\/(\d{4}))?\s*(?:(\d{1,2}):(\d{2}):(\d{2})\s*([AP]M)?)?$/.exec(field);
  if (!m || (!m[1] && !m[4])) return field;
  let serial = 0;
  if (m[1]) serial = Date.UTC(Number(m[3]), Number(m[1]) - 1, Number(m[2])) / 86_400_000 + 25_569;
  if (m[4])
    serial +=
      ((m[7] ? Number(m[4]) % 12 : Number(m[4])) + (m[7] === "PM" ? 12 : 0)) / 24 +
      Number(m[5]) / 1_440 +
      Number(m[6]) / 86_400;
  return serial;
}

export async function evaluateInCalc(formulas: string[]): Promise<unknown[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "calc-oracle-"));
  try {
    const input = path.join(dir, "corpus.fods");
    await writeFile(input, fods(formulas));
    // CSV: comma, double quotes, UTF-8, from line 1, en-US, text quoted, raw values (not as shown), no formulas.
    const filter = "csv:Text - txt - csv (StarCalc):44,34,76,1,,1033,true,true,false,false";
    await new Promise<void>((resolve, reject) =>
      execFile(
        "soffice",
        [
          "--headless",
          "--norestore",
          "--nologo",
          `-env:UserInstallation=file://${path.join(dir, "profile")}`,
          "--convert-to",
          filter,
          "--outdir",
          dir,
          input,
        ],
        { timeout: 120_000 },
        (err) => (err ? reject(err) : resolve()),
      ),
    );
    const rows = parseCsvRows(await readFile(path.join(dir, "corpus.csv"), "utf8"));
    return formulas.map((_, i) => cellValue(rows[i] ?? ""));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
