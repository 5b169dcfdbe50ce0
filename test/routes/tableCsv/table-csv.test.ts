/** CSV import and export of tables (docs/api-guide.md › CSV import and export), through the public API. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { addColumn, allRows, bulkRows, makeTable } from "../../support/tableHarness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

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

describe("CSV import", () => {
  it("creates columns from the header, infers number, checkbox, date, select and text, and writes the rows", async () => {
    const { tableId, nameColumnId } = await makeTable(t.owner.token, t.projectId, "Import");
    const csv =
      "Name,Price,Paid,Due,Status,Notes\r\n" +
      'Alpha,1.5,true,2024-01-31,Open,"quoted, with comma"\r\n' +
      'Beta,2,false,2024-02-29,Closed,"line\nbreak"\r\n' +
      'Gamma,-3e2,yes,2024-03-01T10:20:30Z,Open,"say ""hi"""\r\n' +
      "Delta,,no,,Open,\r\n" +
      "Epsilon,4,true,2024-12-24,Closed,plain\r\n";
    const res = await importCsv(tableId, csv);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ imported: 5, failed: 0, errors: [] });
    const byHeader = Object.fromEntries(res.body.data.columns.map((c: any) => [c.header, c]));
    expect(byHeader.Name).toMatchObject({ columnId: nameColumnId, created: false, type: "identifier" });
    expect(byHeader.Price).toMatchObject({ created: true, type: "number" });
    expect(byHeader.Paid).toMatchObject({ created: true, type: "checkbox" });
    expect(byHeader.Due).toMatchObject({ created: true, type: "date" });
    expect(byHeader.Status).toMatchObject({ created: true, type: "select" });
    expect(byHeader.Notes).toMatchObject({ created: true, type: "text" });

    const cols = await columnsOf(tableId);
    const status = cols.find((c) => c.name === "Status");
    expect(status.data.selectItems.map((i: any) => i.label)).toEqual(["Open", "Closed"]);
    const rows = await allRows(t.owner.token, tableId);
    expect(rows.map((r) => r.cells[nameColumnId])).toEqual(["Alpha", "Beta", "Gamma", "Delta", "Epsilon"]);
    const [alpha, beta, gamma, delta] = rows;
    expect(alpha.cells[byHeader.Price.columnId]).toBe(1.5);
    expect(gamma.cells[byHeader.Price.columnId]).toBe(-300);
    expect(delta.cells[byHeader.Price.columnId]).toBeNull();
    expect(alpha.cells[byHeader.Paid.columnId]).toBe(true);
    expect(beta.cells[byHeader.Paid.columnId]).toBe(false);
    expect(alpha.cells[byHeader.Due.columnId]).toBe(Date.UTC(2024, 0, 31));
    expect(gamma.cells[byHeader.Due.columnId]).toBe(Date.UTC(2024, 2, 1, 10, 20, 30));
    expect(alpha.cells[byHeader.Status.columnId]).toBe(status.data.selectItems[0].id);
    expect(alpha.cells[byHeader.Notes.columnId]).toBe("quoted, with comma");
    expect(beta.cells[byHeader.Notes.columnId]).toBe("line\nbreak");
    expect(gamma.cells[byHeader.Notes.columnId]).toBe('say "hi"');
  });

  it("matches existing columns by name (case-insensitive) or id, takes given types, and ignores computed columns", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Match");
    const qty = await addColumn(t.owner.token, tableId, "Qty", { type: "number" });
    const tags = await addColumn(t.owner.token, tableId, "Tags", {
      type: "multiSelect",
      selectItems: [{ id: "red", label: "Red", color: "#f00" }],
    });
    await addColumn(t.owner.token, tableId, "Double", { type: "formula", formula: { text: "{Qty} * 2" } });
    const csv = `name,QTY,${tags._id},Double,Code\nA,1,"Red, Blue",99,007\nB,2,red,98,010\n`;
    const res = await importCsv(tableId, csv, { types: JSON.stringify({ Code: "text" }) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.imported).toBe(2);
    const byHeader = Object.fromEntries(res.body.data.columns.map((c: any) => [c.header, c]));
    expect(byHeader.QTY).toMatchObject({ columnId: qty._id, created: false });
    expect(byHeader[tags._id]).toMatchObject({ columnId: tags._id, created: false });
    expect(byHeader.Double).toMatchObject({ ignored: true, columnId: null });
    expect(byHeader.Code).toMatchObject({ created: true, type: "text" });
    const rows = await allRows(t.owner.token, tableId);
    const cols = await columnsOf(tableId);
    const tagItems = cols.find((c) => c._id === tags._id).data.selectItems;
    expect(tagItems.map((i: any) => i.label)).toEqual(["Red", "Blue"]);
    expect(rows[0].cells[tags._id]).toEqual(["red", tagItems[1].id]);
    expect(rows[1].cells[tags._id]).toEqual(["red"]);
    expect(rows[0].cells[byHeader.Code.columnId]).toBe("007");
    // The formula column is computed from the imported values, not taken from the file.
    const double = cols.find((c) => c.name === "Double");
    expect(rows.map((r) => r.cells[double._id])).toEqual([2, 4]);
  });

  it("partial mode writes the valid rows and reports each bad row by its line", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Partial");
    await addColumn(t.owner.token, tableId, "Qty", { type: "number" });
    await addColumn(t.owner.token, tableId, "Site", { type: "url" });
    const csv =
      "Name,Qty,Site\nok1,1,https://a.example\nbad,abc,https://b.example\nok2,2,\n\nshort,3\nworse,x,not a url\nok3,3,https://c.example\n";
    const res = await importCsv(tableId, csv);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.imported).toBe(3);
    expect(res.body.data.failed).toBe(3);
    const errors = res.body.data.errors;
    expect(errors.map((e: any) => e.line)).toEqual([3, 6, 7, 7]);
    expect(errors[0]).toMatchObject({ line: 3, column: "Qty" });
    expect(errors[1].message).toMatch(/2 fields; the header has 3/);
    expect(errors.filter((e: any) => e.line === 7).map((e: any) => e.column)).toEqual(["Qty", "Site"]);
    const rows = await allRows(t.owner.token, tableId);
    expect(rows).toHaveLength(3);
  });

  it("atomic mode writes nothing when a row is bad: 422 with the lines", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Atomic");
    const csv = "Name,Qty\na,1\nb,2\nc,3\nd,4\ne,five\n";
    const before = (await columnsOf(tableId)).length;
    const res = await importCsv(tableId, csv, { mode: "atomic", types: JSON.stringify({ Qty: "number" }) });
    expectError(res, 422, "UnprocessableEntityError");
    expect(res.body.details[0]).toMatchObject({ line: 6, path: "line 6.Qty" });
    expect(await allRows(t.owner.token, tableId)).toHaveLength(0);
    expect((await columnsOf(tableId)).length).toBe(before);
    const good = await importCsv(tableId, "Name,Qty\na,1\nb,2\n", {
      mode: "atomic",
      types: JSON.stringify({ Qty: "number" }),
    });
    expect(good.status, JSON.stringify(good.body)).toBe(200);
    expect(good.body.data.imported).toBe(2);
  });

  it("a file that is not CSV is 422 with its line, never 500", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Broken");
    const unclosed = await importCsv(tableId, 'Name,Note\na,"never closed\nb,c\n', { mode: "atomic" });
    expectError(unclosed, 422, "UnprocessableEntityError");
    expect(unclosed.body.details[0].line).toBeGreaterThanOrEqual(2);
    expectError(await importCsv(tableId, ""), 422, "UnprocessableEntityError");
    const repeated = await importCsv(tableId, "A,B,a\n1,2,3\n");
    expectError(repeated, 422, "UnprocessableEntityError");
    expect(repeated.body.details[0]).toMatchObject({ line: 1 });
    // In partial mode the unreadable record is reported and the rows before it are kept.
    const partial = await importCsv(tableId, 'Name\nfirst\n"bad"x\n');
    expect(partial.status, JSON.stringify(partial.body)).toBe(200);
    expect(partial.body.data.imported).toBe(1);
    expect(partial.body.data.errors[0]).toMatchObject({ line: 3 });
    expectError(await importCsv(tableId, "Name\na\n", { types: "{not json" }), 400, "ValidationError");
    expectError(
      await importCsv(tableId, "Name\na\n", { types: JSON.stringify({ Name: "rainbow" }) }),
      400,
      "ValidationError",
    );
    const wrongType = await call("POST", `/table/${tableId}/import`, {
      token: t.owner.token,
      raw: "Name\na\n",
      headers: { "content-type": "image/png" },
    });
    expectError(wrongType, 415, "UnsupportedMediaTypeError");
    const huge = await call("POST", `/table/${tableId}/import`, {
      token: t.owner.token,
      raw: "Name\na\n",
      headers: { ...csvHeaders, "content-length": String(60 * 1024 * 1024) },
    });
    expect([413, 400]).toContain(huge.status);
  });

  it("adds select items for labels first seen after the sample, and reads a BOM and another delimiter", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Late labels");
    const lines = ["\ufeffName;Stage"];
    for (let i = 0; i < 1500; i++) lines.push(`r${i};${i < 1200 ? (i % 2 ? "Open" : "Closed") : "Late"}`);
    const res = await importCsv(tableId, lines.join("\n"), { delimiter: ";" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ imported: 1500, failed: 0 });
    const stage = res.body.data.columns.find((c: any) => c.header === "Stage");
    expect(stage).toMatchObject({ created: true, type: "select" });
    const items = (await columnsOf(tableId)).find((c) => c._id === stage.columnId).data.selectItems;
    expect(items.map((i: any) => i.label)).toEqual(["Closed", "Open", "Late"]);
    const rows = await allRows(t.owner.token, tableId);
    expect(rows).toHaveLength(1500);
    expect(rows[1499].cells[stage.columnId]).toBe(items[2].id);
    expect((await exportCsv(tableId)).text.split("\r\n")[1500]).toBe("r1499,Late");
  });

  it("accepts a multipart upload", async () => {
    const { tableId, nameColumnId } = await makeTable(t.owner.token, t.projectId, "Multipart");
    const form = new FormData();
    form.set("file", new File(["Name,N\nx,1\ny,2\n"], "rows.csv", { type: "text/csv" }));
    const res = await call("POST", `/table/${tableId}/import`, {
      token: t.owner.token,
      raw: form as unknown as BodyInit,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.imported).toBe(2);
    expect((await allRows(t.owner.token, tableId)).map((r) => r.cells[nameColumnId])).toEqual(["x", "y"]);
  });

  it("a keyed import (raw or multipart) runs once: its retry gets the same answer and the rows are written once", async () => {
    for (const multipart of [false, true]) {
      const { tableId, nameColumnId } = await makeTable(t.owner.token, t.projectId, `Keyed ${multipart}`);
      const key = `csv-${crypto.randomUUID()}`;
      const text = "Name,N\nx,1\ny,2\n";
      // A retry resends the same bytes: a multipart body is encoded once (a new FormData would draw a new boundary).
      const form = new FormData();
      form.set("file", new File([text], "rows.csv", { type: "text/csv" }));
      const encoded = new Request("http://encode.test/", { method: "POST", body: form });
      const [formType, formBytes] = [encoded.headers.get("content-type")!, await encoded.arrayBuffer()];
      const send = () =>
        multipart
          ? call("POST", `/table/${tableId}/import`, {
              token: t.owner.token,
              raw: formBytes,
              headers: { "content-type": formType, "idempotency-key": key },
            })
          : call("POST", `/table/${tableId}/import`, {
              token: t.owner.token,
              raw: text,
              headers: { ...csvHeaders, "idempotency-key": key },
            });
      const first = await send();
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body.data.imported).toBe(2);
      const again = await send();
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect((await allRows(t.owner.token, tableId)).map((r) => r.cells[nameColumnId])).toEqual(["x", "y"]);
    }
  });

  it("a viewer cannot import (403) and an outsider sees no table (404)", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Guarded");
    expectError(await importCsv(tableId, "Name\na\n", {}, t.viewer.token), 403, "ForbiddenError");
    expectError(await importCsv(tableId, "Name\na\n", {}, t.outsider.token), 404, "NotFoundError");
    expectError(await exportCsv(tableId, {}, t.outsider.token), 404, "NotFoundError");
  });
});

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
