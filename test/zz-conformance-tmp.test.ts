import { describe, it } from "vitest";
import { call, ok, registerUser, seedTenant, type Tenant } from "./harness";
import { addColumn, addRow, makeTable } from "./tableHarness";
import { AUDIO_HEADS, bytesWithHead, docxBytes, DOCX_TYPE, streamOf } from "./content-fixtures";

const out: Record<string, unknown> = {};
const log = (k: string, v: unknown) => {
  out[k] = v;
};
const sb = (r: any) => ({ s: r.status, b: r.body instanceof ArrayBuffer ? `<${r.body.byteLength} bytes>` : r.body });

describe("conformance probe", () => {
  it("probes", async () => {
    const t: Tenant = await seedTenant();
    const o = t.owner.token;

    // OpenAPI
    const spec = (await call("GET", "/openapi.json")).body;
    log("openapi", { v: spec.openapi, info: spec.info.version, sec: spec.components?.securitySchemes, paths: Object.fromEntries(Object.entries<any>(spec.paths).map(([p, i]) => [p, Object.keys(i)])) });

    // E17
    log("E17 malformed", sb(await call("GET", "/workspace/all/bad%20id!!", { token: o })));
    log("E17 dot", sb(await call("GET", "/workspace/all/a.b", { token: o })));
    log("E17 long", sb(await call("GET", `/workspace/all/${"x".repeat(300)}`, { token: o })));
    log("E17 other org", sb(await call("GET", `/workspace/all/${t.outsider.organizationId}`, { token: o })));
    log("E17 own", sb(await call("GET", `/workspace/all/${t.organizationId}`, { token: t.editor.token })));
    log("E17 noauth", sb(await call("GET", `/workspace/all/${t.organizationId}`)));

    // E10
    log("E10 ok", sb(await call("GET", `/document/${t.docId}`, { token: o })));
    log("E10 outsider", sb(await call("GET", `/document/${t.docId}`, { token: t.outsider.token })));
    log("E10 missing", sb(await call("GET", `/document/nope123`, { token: o })));
    log("E10 malformed", sb(await call("GET", `/document/bad.id`, { token: o })));

    // E20
    log("E20 outsider", sb(await call("GET", `/access/document/${t.docId}`, { token: t.outsider.token })));
    log("E20 missing", sb(await call("GET", `/access/document/nope123`, { token: o })));
    log("E20 malformed", sb(await call("GET", `/access/document/bad.id`, { token: o })));

    // create bodies with response-only members
    const docRes = (await call("GET", `/document/${t.docId}`, { token: o })).body.data;
    log("POST /document echo", sb(await call("POST", "/document", { token: o, body: { ...docRes, _id: undefined, name: "Echo", type: "DOCUMENT", parentId: t.folderId, createdAt: 1, collaborators: [] } })));
    const proj = (await call("GET", `/project/${t.projectId}`, { token: o })).body.data;
    log("POST /project echo", sb(await call("POST", "/project", { token: o, body: { ...proj, name: "Echo P" } })));
    log("PATCH /project echo", sb(await call("PATCH", `/project/${t.projectId}`, { token: o, body: { ...proj } })));
    const ws = (await call("GET", `/workspace/${t.workspaceId}`, { token: o })).body.data;
    log("POST /workspace echo", sb(await call("POST", "/workspace", { token: o, body: { ...ws, organizationId: t.organizationId, name: "E" } })));
    log("PATCH /document echo", sb(await call("PATCH", `/document/${t.docId}`, { token: o, body: { ...docRes } })));
    log("PATCH /workspace echo", sb(await call("PATCH", `/workspace/${t.workspaceId}`, { token: o, body: { ...ws } })));
    log("E12 workspace collab owner role", sb(await call("POST", `/workspace/${t.workspaceId}/collaborator`, { token: o, body: { email: t.outsider.email, role: "owner" } })));

    // wrong content type on JSON route
    log("JSON route text/plain", sb(await call("POST", "/project", { token: o, raw: JSON.stringify({ workspaceId: t.workspaceId, name: "x" }), headers: { "content-type": "text/plain" } })));
    log("JSON route no ctype", sb(await call("POST", "/project", { token: o, raw: JSON.stringify({ workspaceId: t.workspaceId, name: "x" }) })));
    log("bad json", sb(await call("POST", "/project", { token: o, raw: "{bad", headers: { "content-type": "application/json" } })));
    log("405", sb(await call("PUT", `/table/all/${t.projectId}/id`, { token: o })));
    log("unknown", sb(await call("GET", `/nope/x`, { token: o })));
    log("401 bad body", sb(await call("PUT", `/snapshot/abc`, { body: {} })));

    // E12
    log("E12 outsider", sb(await call("GET", `/project/all/${t.workspaceId}`, { token: t.outsider.token })));
    log("E12 missing", sb(await call("GET", `/project/all/nope`, { token: o })));
    log("E12 own", sb(await call("GET", `/project/all/${t.workspaceId}`, { token: o })));

    // Tables
    const tb1 = await makeTable(o, t.projectId, "T1");
    const tb2 = await makeTable(o, t.projectId, "T2");
    const tb3 = await makeTable(o, t.projectId, "T3");
    log("E19", { expected: [tb3.tableId, tb2.tableId, tb1.tableId], got: sb(await call("GET", `/table/all/${t.projectId}/id`, { token: o })) });
    log("E19 outsider", sb(await call("GET", `/table/all/${t.projectId}/id`, { token: t.outsider.token })));
    const c1 = await addColumn(o, tb1.tableId, "Num", { type: "number", number: { format: "number", decimalPlaces: 2, aggregation: "sum" } });
    const c2 = await addColumn(o, tb1.tableId, "Sel", { type: "select", selectItems: [{ id: "a", label: "A", color: "red" }] });
    const c3 = await addColumn(o, tb1.tableId, "Text", { type: "text" });
    log("E11", sb(await call("GET", `/table/columns/${tb1.tableId}`, { token: o })));
    log("E11 outsider", sb(await call("GET", `/table/columns/${tb1.tableId}`, { token: t.outsider.token })));
    const row = await addRow(o, tb1.tableId, { [c1._id]: 3, [c3._id]: "hi" });
    log("row create", row);
    log("E16", sb(await call("GET", `/table/row/${row.row._id}`, { token: t.viewer.token })));
    log("E16 outsider", sb(await call("GET", `/table/row/${row.row._id}`, { token: t.outsider.token })));
    log("E16 missing", sb(await call("GET", `/table/row/nope`, { token: o })));
    const cellId = row.cells.find((c: any) => c.columnId === c1._id)._id;
    log("E15", sb(await call("GET", `/table/cell/${cellId}`, { token: t.viewer.token })));
    log("E15 outsider", sb(await call("GET", `/table/cell/${cellId}`, { token: t.outsider.token })));
    log("E15 missing", sb(await call("GET", `/table/cell/nope`, { token: o })));

    // E3
    const fcol = await addColumn(o, tb1.tableId, "F", { type: "text" });
    log("E3 ok", sb(await call("POST", `/table/column/${fcol._id}/computed/apply`, { token: o, body: { description: [{ kind: "text", text: "x*2" }], expression: { kind: "op", op: "*", args: [{ kind: "column", columnId: c1._id }, { kind: "literal", value: 2 }] } } })));
    log("E3 viewer", sb(await call("POST", `/table/column/${fcol._id}/computed/apply`, { token: t.viewer.token, body: { description: [], expression: { kind: "literal", value: 1 } } })));
    log("E3 outsider", sb(await call("POST", `/table/column/${fcol._id}/computed/apply`, { token: t.outsider.token, body: { description: [], expression: { kind: "literal", value: 1 } } })));
    log("E3 outsider badbody", sb(await call("POST", `/table/column/${fcol._id}/computed/apply`, { token: t.outsider.token, body: { description: [{ kind: "zzz" }], expression: { kind: "literal", value: 1 } } })));
    log("E3 unknown fn", sb(await call("POST", `/table/column/${fcol._id}/computed/apply`, { token: o, body: { description: [], expression: { kind: "call", fn: "NOPE", args: [] } } })));
    log("E3 viewer unknown fn", sb(await call("POST", `/table/column/${fcol._id}/computed/apply`, { token: t.viewer.token, body: { description: [], expression: { kind: "call", fn: "NOPE", args: [] } } })));
    log("E3 identifier", sb(await call("POST", `/table/column/${tb1.nameColumnId}/computed/apply`, { token: o, body: { description: [], expression: { kind: "literal", value: 1 } } })));
    log("E3 no description", sb(await call("POST", `/table/column/${fcol._id}/computed/apply`, { token: o, body: { expression: { kind: "literal", value: 1 } } })));
    log("E11 after", sb(await call("GET", `/table/columns/${tb1.tableId}`, { token: o })));

    // References E1/E4
    const tr = await call("POST", "/table/reference", { token: o, body: { documentId: t.docId, tableId: tb1.tableId, columnId: c1._id, relatedRowId: row.row._id, type: "reference" } });
    log("tr create", sb(tr));
    const trId = tr.body.data?._id;
    log("E1", sb(await call("GET", `/table/reference/${trId}`, { token: t.viewer.token })));
    log("E1 outsider", sb(await call("GET", `/table/reference/${trId}`, { token: t.outsider.token })));
    log("E1 malformed", sb(await call("GET", `/table/reference/bad.id`, { token: o })));
    log("E1 echo create", sb(await call("POST", "/table/reference", { token: o, body: { ...tr.body.data, _id: "tr-echo-1" } })));
    const cr = await call("POST", "/clause-reference", { token: o, body: { _id: "cl-1-" + Date.now(), blockId: "b1", documentId: t.docId, hierarchy: `${t.doc2Id}/b2` } });
    log("E4", sb(cr));
    log("E4 dup", sb(await call("POST", "/clause-reference", { token: o, body: { _id: cr.body.data._id, blockId: "b1", documentId: t.docId, hierarchy: `${t.doc2Id}/b2` } })));
    log("E4 no _id", sb(await call("POST", "/clause-reference", { token: o, body: { blockId: "b1", documentId: t.docId, hierarchy: `${t.doc2Id}/b2` } })));
    log("E4 viewer", sb(await call("POST", "/clause-reference", { token: t.viewer.token, body: { _id: "cl-v", blockId: "b1", documentId: t.docId, hierarchy: `${t.doc2Id}/b2` } })));
    log("E4 outsider", sb(await call("POST", "/clause-reference", { token: t.outsider.token, body: { _id: "cl-o", blockId: "b1", documentId: t.docId, hierarchy: `${t.doc2Id}/b2` } })));
    log("E4 hierarchy single", sb(await call("POST", "/clause-reference", { token: o, body: { _id: "cl-h" + Date.now(), blockId: "b1", documentId: t.docId, hierarchy: `justone` } })));
    log("E4 echo", sb(await call("POST", "/clause-reference", { token: o, body: { ...cr.body.data, _id: "cl-e" + Date.now() } })));

    // E5
    log("E5", sb(await call("POST", "/export/get-documents-data", { token: o, body: { projectId: t.projectId, documentIds: [t.docId] } })));
    log("E5 outsider", sb(await call("POST", "/export/get-documents-data", { token: t.outsider.token, body: { projectId: t.projectId, documentIds: [t.docId] } })));
    log("E5 empty", sb(await call("POST", "/export/get-documents-data", { token: o, body: { projectId: t.projectId, documentIds: [] } })));

    // E6
    const b64 = btoa(String.fromCharCode(...docxBytes("Hi")));
    log("E6 outsider", sb(await call("POST", "/export/doc-to-pdf", { token: t.outsider.token, body: { data: [{ documentId: t.docId, docx: b64 }] } })));
    const e6 = await call("POST", "/export/doc-to-pdf", { token: o, body: { data: [{ documentId: t.docId, docx: b64 }] } });
    log("E6", { s: e6.status, keys: Object.keys(e6.body ?? {}), first: e6.body?.pdfDocuments?.[0] ? { documentId: e6.body.pdfDocuments[0].documentId, pdfPrefix: String(e6.body.pdfDocuments[0].pdf).slice(0, 10) } : e6.body });
    log("E6 empty", sb(await call("POST", "/export/doc-to-pdf", { token: o, body: { data: [] } })));

    // E7
    const newbie = await registerUser("Newbie");
    log("E7", sb(await call("POST", "/document/invite-user", { token: o, body: { email: newbie.email, documentId: t.folderId } })));
    log("E7 pending", sb(await call("POST", "/document/invite-user", { token: o, body: { email: "Pending-X@Example.com", documentId: t.docId, role: "editor" } })));
    log("E7 editor owner", sb(await call("POST", "/document/invite-user", { token: t.editor.token, body: { email: "p2@example.com", documentId: t.docId, role: "owner" } })));
    log("E7 bad email", sb(await call("POST", "/document/invite-user", { token: o, body: { email: "nope", documentId: t.docId } })));
    log("E7 viewer", sb(await call("POST", "/document/invite-user", { token: t.viewer.token, body: { email: "p3@example.com", documentId: t.docId } })));
    log("E7 outsider", sb(await call("POST", "/document/invite-user", { token: t.outsider.token, body: { email: "p3@example.com", documentId: t.docId } })));

    // E8
    const snap = await ok("POST", "/snapshot", { token: o, body: { documentId: t.docId, name: "S1" } });
    log("snapshot", snap);
    const sid = snap.data._id;
    log("E8 neither", sb(await call("PUT", `/snapshot/${sid}`, { token: o, body: {} })));
    log("E8 only ignored", sb(await call("PUT", `/snapshot/${sid}`, { token: o, body: { _id: sid } })));
    log("E8 ok", sb(await call("PUT", `/snapshot/${sid}`, { token: o, body: { description: "d" } })));
    log("E8 viewer", sb(await call("PUT", `/snapshot/${sid}`, { token: t.viewer.token, body: { name: "n" } })));
    log("E8 outsider", sb(await call("PUT", `/snapshot/${sid}`, { token: t.outsider.token, body: { name: "n" } })));
    log("E8 unknown", sb(await call("PUT", `/snapshot/${sid}`, { token: o, body: { name: "n", foo: 1 } })));
    log("E8 echo list", sb(await call("PUT", `/snapshot/${sid}`, { token: o, body: { ...snap.data } })));

    // E9
    const audio = bytesWithHead(AUDIO_HEADS["audio/mpeg"]!, 200);
    const up = await call("POST", "/media/audio", { token: t.editor.token, raw: audio, headers: { "content-type": "application/octet-stream" }, query: { workspaceId: t.workspaceId, documentId: t.docId, fileName: "a.mp3", mimeType: "audio/mpeg" } });
    log("E9", sb(up));
    log("E9 viewer", sb(await call("POST", "/media/audio", { token: t.viewer.token, raw: audio, headers: { "content-type": "application/octet-stream" }, query: { workspaceId: t.workspaceId, documentId: t.docId, fileName: "a.mp3", mimeType: "audio/mpeg" } })));
    log("E9 outsider", sb(await call("POST", "/media/audio", { token: t.outsider.token, raw: audio, headers: { "content-type": "application/octet-stream" }, query: { workspaceId: t.workspaceId, documentId: t.docId, fileName: "a.mp3", mimeType: "audio/mpeg" } })));
    log("E9 411", sb(await call("POST", "/media/audio", { token: o, raw: streamOf(audio), headers: { "content-type": "application/octet-stream" }, query: { workspaceId: t.workspaceId, documentId: t.docId, fileName: "a.mp3", mimeType: "audio/mpeg" } })));
    log("E9 413", sb(await call("POST", "/media/audio", { token: o, raw: streamOf(audio), headers: { "content-type": "application/octet-stream", "content-length": String(50 * 1024 * 1024 + 1) }, query: { workspaceId: t.workspaceId, documentId: t.docId, fileName: "a.mp3", mimeType: "audio/mpeg" } })));
    log("E9 extra query", sb(await call("POST", "/media/audio", { token: o, raw: audio, headers: { "content-type": "application/octet-stream" }, query: { workspaceId: t.workspaceId, documentId: t.docId, fileName: "a.mp3", mimeType: "audio/mpeg", foo: "1" } })));
    if (up.body?.data?.url) {
      const u = new URL(up.body.data.url);
      const fetched = await call("GET", u.pathname + u.search);
      log("E9 url fetch", { s: fetched.status, ct: fetched.headers.get("content-type"), len: fetched.headers.get("content-length") });
      const exp = Number(u.searchParams.get("expires"));
      log("E9 ttl ms", exp - Date.now());
    }

    // E18 / E21
    const docxB = docxBytes("Hello");
    const dx = await call("POST", "/document/docx", { token: o, raw: docxB, headers: { "content-type": DOCX_TYPE, "content-length": String(docxB.byteLength) }, query: { projectId: t.projectId, name: "Résumé ü" } });
    log("docx create", sb(dx));
    const dxId = dx.body.data._id;
    log("E18 ok", sb(await call("POST", `/document/docx/${dxId}/mark-seeded`, { token: t.viewer.token })));
    log("E18 again", sb(await call("POST", `/document/docx/${dxId}/mark-seeded`, { token: o })));
    log("E18 nondocx", sb(await call("POST", `/document/docx/${t.docId}/mark-seeded`, { token: o })));
    log("E18 folder", sb(await call("POST", `/document/docx/${t.folderId}/mark-seeded`, { token: o })));
    log("E18 outsider", sb(await call("POST", `/document/docx/${dxId}/mark-seeded`, { token: t.outsider.token })));
    log("E18 with body", sb(await call("POST", `/document/docx/${dxId}/mark-seeded`, { token: o, body: { foo: 1 } })));
    log("E10 docx", sb(await call("GET", `/document/${dxId}`, { token: o })));
    const ex = await call("GET", `/document/docx/${dxId}/export`, { token: t.viewer.token });
    log("E21", { s: ex.status, ct: ex.headers.get("content-type"), cl: ex.headers.get("content-length"), etag: ex.headers.get("etag"), cd: ex.headers.get("content-disposition"), size: (ex.body as ArrayBuffer).byteLength, orig: docxB.byteLength });
    log("E21 nondocx", sb(await call("GET", `/document/docx/${t.docId}/export`, { token: o })));
    log("E21 outsider", sb(await call("GET", `/document/docx/${dxId}/export`, { token: t.outsider.token })));

    // soft delete → E10 not found shape
    await ok("DELETE", `/document/${t.doc2Id}`, { token: o });
    log("E10 deleted", sb(await call("GET", `/document/${t.doc2Id}`, { token: o })));
    log("E20 deleted", sb(await call("GET", `/access/document/${t.doc2Id}`, { token: o })));

    // rows list
    log("rows list", sb(await call("GET", `/table/${tb1.tableId}/rows`, { token: o })));
    log("me", sb(await call("GET", `/me`, { token: o })));
    log("token create", sb(await call("POST", `/token`, { token: o, body: { name: "x" } })));
    log("token list", sb(await call("GET", `/token/all`, { token: o })));
    log("org list", sb(await call("GET", `/organization/all`, { token: o })));

    console.log("@@OUT@@" + JSON.stringify(out, null, 1));
  });
});
