import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { addColumn, addRow, makeTable } from "../../support/tableHarness";

/** E5 with real content in R2, references in D1 and rows with cells. */
describe("E5 POST /export/get-documents-data", () => {
  let t: Tenant;
  let table: { tableId: string; nameColumnId: string };
  let priceColumnId: string;
  let rowA: string;
  let rowB: string;

  async function newDocument(name: string) {
    return (
      await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, parentId: t.folderId, name, type: "DOCUMENT" },
      })
    ).data._id as string;
  }

  /** A document with blocks, settings, a clause reference to doc2's block and a table reference to two rows. */
  async function richDocument(name: string) {
    const id = await newDocument(name);
    await ok("PUT", `/document/${id}/content`, {
      token: t.owner.token,
      body: { blocks: [{ id: "p1", type: "paragraph", text: name }] },
    });
    await ok("PUT", `/document/${id}/settings`, {
      token: t.owner.token,
      body: { listTemplateId: "tpl-1", importedTermId: "term-9" },
    });
    await ok("POST", "/clause-reference", {
      token: t.owner.token,
      body: { _id: `cl-${id}`, blockId: "p1", documentId: id, hierarchy: `${t.doc2Id}/clause-7/sub` },
    });
    await ok("POST", "/table/reference", {
      token: t.owner.token,
      body: {
        documentId: id,
        tableId: table.tableId,
        columnId: priceColumnId,
        relatedRowId: rowA,
        rowId: rowB,
        type: "reference",
      },
    });
    return id;
  }

  beforeAll(async () => {
    t = await seedTenant();
    await ok("PUT", `/document/${t.doc2Id}/content`, {
      token: t.owner.token,
      body: {
        blocks: [
          { id: "intro", type: "heading", text: "Terms" },
          { id: "list", children: [{ id: "clause-7", type: "clause", text: "Payment in 30 days" }] },
        ],
      },
    });
    table = await makeTable(t.owner.token, t.projectId, "Prices");
    priceColumnId = (await addColumn(t.owner.token, table.tableId, "Price", { type: "number" }))._id;
    rowA = (await addRow(t.owner.token, table.tableId, { [table.nameColumnId]: "Apples", [priceColumnId]: 3 })).row._id;
    rowB = (await addRow(t.owner.token, table.tableId, { [table.nameColumnId]: "Pears", [priceColumnId]: 4.5 })).row
      ._id;
  });

  it("returns blocks, settings, resolved clause and table references and referenced rows, in request order", async () => {
    const d1 = await richDocument("First");
    const res = await call("POST", "/export/get-documents-data", {
      token: t.viewer.token,
      body: { projectId: t.projectId, documentIds: [d1, t.docId] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body)).toEqual(["exportData"]);
    const [first, plain] = res.body.exportData;
    expect(first.documentId).toBe(d1);
    expect(first.blocks).toEqual([{ id: "p1", type: "paragraph", text: "First" }]);
    expect(first.settings).toEqual({ listTemplateId: "tpl-1", importedTermId: "term-9" });
    expect(first.references.clauses).toHaveLength(1);
    expect(first.references.clauses[0]).toMatchObject({
      _id: `cl-${d1}`,
      hierarchy: `${t.doc2Id}/clause-7/sub`,
      resolved: {
        documentId: t.doc2Id,
        blockId: "clause-7",
        block: { id: "clause-7", type: "clause", text: "Payment in 30 days" },
      },
    });
    expect(first.references.tables.references).toHaveLength(1);
    expect(first.references.tables.references[0]).toMatchObject({
      tableName: "Prices",
      columnName: "Price",
      relatedRowId: rowA,
      rowId: rowB,
    });
    const rows = first.references.tables.referenceRow;
    expect(rows.map((r: any) => r._id).sort()).toEqual([rowA, rowB].sort());
    const apples = rows.find((r: any) => r._id === rowA);
    expect(apples.cells).toMatchObject({ [table.nameColumnId]: "Apples", [priceColumnId]: 3 });
    expect(plain).toEqual({
      documentId: t.docId,
      references: { clauses: [], tables: { referenceRow: [], references: [] } },
      settings: { listTemplateId: "", importedTermId: "" },
      blocks: [],
    });
  });

  it("resolves a clause to null when its target block or document is missing", async () => {
    const id = await newDocument("Dangling");
    await ok("POST", "/clause-reference", {
      token: t.owner.token,
      body: { _id: `gone-${id}`, blockId: "b", documentId: id, hierarchy: `${t.doc2Id}/no-such-block` },
    });
    await ok("POST", "/clause-reference", {
      token: t.owner.token,
      body: { _id: `nodoc-${id}`, blockId: "b", documentId: id, hierarchy: `01NOSUCHDOC00000000000000/x` },
    });
    const res = await ok("POST", "/export/get-documents-data", {
      token: t.owner.token,
      body: { projectId: t.projectId, documentIds: [id] },
    });
    expect(res.exportData[0].references.clauses.map((c: any) => c.resolved)).toEqual([null, null]);
  });

  it("reads D1 a fixed number of times however many documents are listed", async () => {
    const many = [];
    for (let i = 0; i < 12; i++) many.push(await richDocument(`Doc ${i}`));
    const one = await call("POST", "/export/get-documents-data", {
      token: t.owner.token,
      body: { projectId: t.projectId, documentIds: many.slice(0, 1) },
    });
    const twelve = await call("POST", "/export/get-documents-data", {
      token: t.owner.token,
      body: { projectId: t.projectId, documentIds: many },
    });
    expect(one.status).toBe(200);
    expect(twelve.status).toBe(200);
    expect(twelve.body.exportData.map((d: any) => d.documentId)).toEqual(many);
    const trips = (r: typeof one) => Number(r.headers.get("x-d1-round-trips"));
    expect(trips(one)).toBeGreaterThan(0);
    expect(trips(twelve)).toBe(trips(one));
  });

  it("answers 403 with nothing returned when any document is unreadable, missing, deleted or in another project", async () => {
    const outsiderDoc = (
      await ok("POST", "/project", {
        token: t.outsider.token,
        body: { workspaceId: t.outsider.workspaceId, name: "Other" },
      })
    ).data._id;
    const foreign = (
      await ok("POST", "/document", {
        token: t.outsider.token,
        body: { projectId: outsiderDoc, name: "Secret", type: "DOCUMENT" },
      })
    ).data._id;
    const deleted = await newDocument("Deleted");
    await ok("DELETE", `/document/${deleted}`, { token: t.owner.token });
    for (const documentIds of [[t.docId, foreign], [t.docId, "01NOSUCHDOC00000000000000"], [deleted]]) {
      const res = await call("POST", "/export/get-documents-data", {
        token: t.owner.token,
        body: { projectId: t.projectId, documentIds },
      });
      expectError(res, 403, "ForbiddenError");
      expect(res.body.exportData).toBeUndefined();
    }
    const otherProject = (
      await ok("POST", "/project", { token: t.owner.token, body: { workspaceId: t.workspaceId, name: "Elsewhere" } })
    ).data._id;
    expectError(
      await call("POST", "/export/get-documents-data", {
        token: t.owner.token,
        body: { projectId: otherProject, documentIds: [t.docId] },
      }),
      403,
      "ForbiddenError",
    );
  });

  it("validates the body", async () => {
    for (const body of [
      {},
      { projectId: t.projectId },
      { projectId: t.projectId, documentIds: [] },
      { projectId: t.projectId, documentIds: ["bad id"] },
      { projectId: t.projectId, documentIds: [t.docId], extra: 1 },
    ]) {
      expectError(
        await call("POST", "/export/get-documents-data", { token: t.owner.token, body }),
        400,
        "ValidationError",
      );
    }
  });

  describe("bounds: one request cannot multiply its answer", () => {
    const fakeId = (i: number) => `01BOUND${String(i).padStart(18, "0")}`;
    /** Status and error class only: a failing answer here may be hundreds of megabytes. */
    const expectRefused = (res: { status: number; body: any }, status: number, error: string) => {
      expect({ status: res.status, error: res.body?.error }).toEqual({ status, error });
    };

    it("refuses a repeated id (400) and more than 100 ids (400)", async () => {
      const repeated = Array.from({ length: 500 }, () => t.docId);
      const res = await call("POST", "/export/get-documents-data", {
        token: t.owner.token,
        body: { projectId: t.projectId, documentIds: repeated },
      });
      expectRefused(res, 400, "ValidationError");
      expectRefused(
        await call("POST", "/export/get-documents-data", {
          token: t.owner.token,
          body: { projectId: t.projectId, documentIds: [t.docId, t.doc2Id, t.docId] },
        }),
        400,
        "ValidationError",
      );
      const tooMany = Array.from({ length: 101 }, (_, i) => fakeId(i));
      expectRefused(
        await call("POST", "/export/get-documents-data", {
          token: t.owner.token,
          body: { projectId: t.projectId, documentIds: tooMany },
        }),
        400,
        "ValidationError",
      );
    });

    it("answers 422 when the answer would pass 64 MiB: large contents", async () => {
      const big = "x".repeat(9.5 * 1024 * 1024);
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        const id = await newDocument(`Big ${i}`);
        await ok("PUT", `/document/${id}/content`, {
          token: t.owner.token,
          body: { blocks: [{ id: "b", type: "paragraph", text: big }] },
        });
        ids.push(id);
      }
      expectRefused(
        await call("POST", "/export/get-documents-data", {
          token: t.owner.token,
          body: { projectId: t.projectId, documentIds: ids },
        }),
        422,
        "UnprocessableEntityError",
      );
      // Fewer documents fit, and the answer is streamed (no Content-Length computed from a whole string).
      // With an Idempotency-Key too: an answer too large to keep is not buffered whole to find that out.
      const res = await call("POST", "/export/get-documents-data", {
        token: t.owner.token,
        headers: { "idempotency-key": `big-${ids[0]}` },
        body: { projectId: t.projectId, documentIds: ids.slice(0, 2) },
      });
      expect(res.status).toBe(200);
      // Streamed: no length known up front, as there would be for a body stringified whole.
      expect(res.headers.get("content-length")).toBeNull();
      expect(res.body.exportData.map((d: any) => d.documentId)).toEqual(ids.slice(0, 2));
      expect(res.body.exportData[1].blocks[0].text.length).toBe(big.length);
    }, 120_000);

    it("answers 422 when resolved clause blocks would pass 64 MiB: one large block referenced many times", async () => {
      const target = await newDocument("Target");
      await ok("PUT", `/document/${target}/content`, {
        token: t.owner.token,
        body: { blocks: [{ id: "huge", type: "clause", text: "y".repeat(1024 * 1024) }] },
      });
      const id = await newDocument("Referrer");
      for (let i = 0; i < 66; i++) {
        await ok("POST", "/clause-reference", {
          token: t.owner.token,
          body: { _id: `big-${i}-${id}`, blockId: "p1", documentId: id, hierarchy: `${target}/huge` },
        });
      }
      expectRefused(
        await call("POST", "/export/get-documents-data", {
          token: t.owner.token,
          body: { projectId: t.projectId, documentIds: [id] },
        }),
        422,
        "UnprocessableEntityError",
      );
    }, 120_000);
  });
});
