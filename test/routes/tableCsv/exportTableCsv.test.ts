/** exportTableCsv: GET /table/{tableId}/export.csv (src/routes/tableCsv/export.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, seedTenant, type Tenant, ok } from "../../support/harness";
import { addColumn, bulkRows, makeTable } from "../../support/tableHarness";

// One tenant for the file: its cases make their own records in it.
let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

/**
 * CSV import bounds and the findings 4, 5 and 11 of issue 34 (docs/security-review.md): the work of one import is
 * bounded (cells per import and per write batch) so other tenants' requests get through while it runs; atomic
 * imports show nothing until they commit and leave nothing when they fail; invalid UTF-8 is 415; an over-long
 * record is one problem; header names are escaped against CSV injection on export.
 */
describe("table-csv-bounds", () => {
  const csvHeaders = { "content-type": "text/csv" };

  function importCsv(tableId: string, raw: BodyInit, query: Record<string, string> = {}) {
    return call("POST", `/table/${tableId}/import`, { token: t.owner.token, raw, headers: csvHeaders, query });
  }

  async function exportText(tableId: string, query: Record<string, string> = {}) {
    const res = await call("GET", `/table/${tableId}/export.csv`, { token: t.owner.token, query });
    expect(res.status).toBe(200);
    return new TextDecoder().decode(res.body as ArrayBuffer);
  }

  describe("CSV export: header names (finding 5)", () => {
    it("escapes header names a spreadsheet would run as a formula, keeps them raw on request, and the import reads them back", async () => {
      const { tableId } = await makeTable(t.owner.token, t.projectId, "Headers");
      const evil = await addColumn(t.owner.token, tableId, '=HYPERLINK("https://evil.example","x")', { type: "text" });
      const plus = await addColumn(t.owner.token, tableId, "+1", { type: "text" });
      await addColumn(t.owner.token, tableId, "@cmd", { type: "text" });
      await addColumn(t.owner.token, tableId, "-x", { type: "text" });
      await addColumn(t.owner.token, tableId, "Plain", { type: "text" });
      await bulkRows(t.owner.token, tableId, [{ [evil._id]: "v" }]);
      const header = (await exportText(tableId)).split("\r\n")[0]!;
      expect(header).toBe(`Name,"'=HYPERLINK(""https://evil.example"",""x"")",'+1,'@cmd,'-x,Plain`);
      expect((await exportText(tableId, { formulas: "keep" })).split("\r\n")[0]).toBe(
        `Name,"=HYPERLINK(""https://evil.example"",""x"")",+1,@cmd,-x,Plain`,
      );
      // The escaped header names the same columns on the way back in: no column is created.
      const res = await importCsv(tableId, `${header}\r\nrow,a,b,c,d,e\r\n`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.columns.every((c: any) => !c.created)).toBe(true);
      expect(res.body.data.columns[2]).toMatchObject({ header: "+1", columnId: plus._id });
    });
  });
});

/** CSV import and export of tables (docs/api-guide.md › CSV import and export), through the public API. */
describe("table-csv", () => {
  const csvHeaders = { "content-type": "text/csv" };

  function importCsv(tableId: string, text: string, query: Record<string, string> = {}, token = t.owner.token) {
    return call("POST", `/table/${tableId}/import`, { token, raw: text, headers: csvHeaders, query });
  }

  async function exportCsv(tableId: string, query: Record<string, string> = {}, token = t.owner.token) {
    const res = await call("GET", `/table/${tableId}/export.csv`, { token, query });
    return { ...res, text: res.body instanceof ArrayBuffer ? new TextDecoder().decode(res.body) : "" };
  }

  async function columnsOf(tableId: string) {
    return (await ok("GET", `/table/columns/${tableId}`, { token: t.owner.token })).data as any[];
  }

  describe("CSV export", () => {
    it("streams RFC 4180 CSV with labels, ISO dates and formula values, by name or id, and reads back the same", async () => {
      const { tableId, nameColumnId } = await makeTable(t.owner.token, t.projectId, "Export, the table");
      const n = await addColumn(t.owner.token, tableId, "N", { type: "number" });
      const d = await addColumn(t.owner.token, tableId, "When", { type: "date" });
      const s = await addColumn(t.owner.token, tableId, "State", {
        type: "select",
        selectItems: [{ id: "o", label: "Open", color: "" }],
      });
      const b = await addColumn(t.owner.token, tableId, "Done", { type: "checkbox" });
      const f = await addColumn(t.owner.token, tableId, "Twice", { type: "formula", formula: { text: "{N} * 2" } });
      await bulkRows(t.owner.token, tableId, [
        { [nameColumnId]: 'comma, "quote"', [n._id]: 1.25, [d._id]: Date.UTC(2024, 4, 6), [s._id]: "o", [b._id]: true },
        { [nameColumnId]: "line\nbreak", [n._id]: 3, [d._id]: Date.UTC(2024, 4, 6, 7, 8, 9) },
        {},
      ]);
      const res = await exportCsv(tableId);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
      expect(res.headers.get("content-disposition")).toMatch(/attachment; filename="Export, the table.csv"/);
      const cols = await columnsOf(tableId);
      expect(cols.map((c) => c.name)).toEqual(["Name", "N", "When", "State", "Done", "Twice"]);
      expect(res.text).toBe(
        "Name,N,When,State,Done,Twice\r\n" +
          '"comma, ""quote""",1.25,2024-05-06,Open,true,2.5\r\n' +
          '"line\nbreak",3,2024-05-06T07:08:09.000Z,,,6\r\n' +
          ",,,,,0\r\n",
      );
      expect(f._id).toBeTruthy();
      const byId = await exportCsv(tableId, { header: "id" });
      expect(byId.text.split("\r\n")[0]).toBe(cols.map((c) => c._id).join(","));

      // What the export writes, the import reads back into another table to the same values.
      const copy = await makeTable(t.owner.token, t.projectId, "Copy");
      const imported = await importCsv(copy.tableId, res.text, {
        types: JSON.stringify({ State: "select", Done: "checkbox", Twice: "number" }),
      });
      expect(imported.status, JSON.stringify(imported.body)).toBe(200);
      expect(imported.body.data.imported).toBe(3);
      const again = await exportCsv(copy.tableId);
      expect(again.text).toBe(res.text);
    });

    it("escapes text that a spreadsheet would run as a formula (CSV injection), reads it back unescaped, and keeps it raw on request", async () => {
      const { tableId, nameColumnId } = await makeTable(t.owner.token, t.projectId, "Injection");
      const n = await addColumn(t.owner.token, tableId, "N", { type: "number" });
      const s = await addColumn(t.owner.token, tableId, "State", {
        type: "select",
        selectItems: [{ id: "x", label: "@SUM(A1)", color: "" }],
      });
      await bulkRows(t.owner.token, tableId, [
        { [nameColumnId]: '=HYPERLINK("http://evil.example","x")', [n._id]: -5, [s._id]: "x" },
        { [nameColumnId]: "+1", [n._id]: 2 },
        { [nameColumnId]: "-2 apples" },
        { [nameColumnId]: "\tcmd" },
        { [nameColumnId]: "a=b, plain" },
      ]);
      const res = await exportCsv(tableId);
      expect(res.status).toBe(200);
      expect(res.text).toBe(
        "Name,N,State\r\n" +
          `"'=HYPERLINK(""http://evil.example"",""x"")",-5,'@SUM(A1)\r\n` +
          "'+1,2,\r\n" +
          "'-2 apples,,\r\n" +
          "'\tcmd,,\r\n" +
          '"a=b, plain",,\r\n',
      );
      // The import takes the escaping quote off again: the round trip is exact.
      const copy = await makeTable(t.owner.token, t.projectId, "Injection copy");
      const imported = await importCsv(copy.tableId, res.text, { types: JSON.stringify({ State: "select" }) });
      expect(imported.status, JSON.stringify(imported.body)).toBe(200);
      expect((await exportCsv(copy.tableId)).text).toBe(res.text);
      const rows = (await ok("GET", `/table/${copy.tableId}/rows`, { token: t.owner.token })).data as any[];
      const copyName = (await columnsOf(copy.tableId)).find((c) => c.name === "Name")._id;
      expect(rows.map((r) => r.cells[copyName])).toEqual([
        '=HYPERLINK("http://evil.example","x")',
        "+1",
        "-2 apples",
        "\tcmd",
        "a=b, plain",
      ]);
      // formulas=keep writes the text as stored, for programs that are not spreadsheets.
      const raw = await exportCsv(tableId, { formulas: "keep" });
      expect(raw.text.split("\r\n")[2]).toBe("+1,2,");
      expect((await exportCsv(tableId, { formulas: "run" })).status).toBe(400);
    });

    it("exports an empty table as its header line, and a table of more rows than a page", async () => {
      const { tableId, nameColumnId } = await makeTable(t.owner.token, t.projectId, "Pages");
      expect((await exportCsv(tableId)).text).toBe("Name\r\n");
      for (let k = 0; k < 3; k++)
        await bulkRows(
          t.owner.token,
          tableId,
          Array.from({ length: 1000 }, (_, i) => ({ [nameColumnId]: `r${k * 1000 + i}` })),
        );
      const text = (await exportCsv(tableId)).text;
      const lines = text.split("\r\n");
      expect(lines).toHaveLength(3002);
      expect(lines[1]).toBe("r0");
      expect(lines[3000]).toBe("r2999");
    });
  });
});
