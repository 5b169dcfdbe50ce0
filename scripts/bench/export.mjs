// npm run bench -- export: E5 latency for 1, 10 and 100 documents with the D1 round trips each took (flat).
import { median, printTable, seedUser, startApi, tokensFor } from "./lib.mjs";

export default async function () {
  const runs = Number(process.env.BENCH_EXPORT_RUNS || 15);
  const api = await startApi();
  const rows = [];
  try {
    const u = await seedUser(api);
    // The setup sends ~500 requests within a minute: spread over 4 users of the workspace (300/60 s each).
    const tokens = await tokensFor(api, u, 4);
    const table = await api.call("POST", "/table", {
      token: u.token,
      body: { projectId: u.projectId, name: "Prices" },
    });
    const nameCol = table.data.columns[0]._id;
    const created = await api.call("POST", `/table/${table.data._id}/rows`, {
      token: u.token,
      body: { rows: Array.from({ length: 200 }, (_, i) => ({ cells: { [nameCol]: `Item ${i}` } })) },
    });
    const rowIds = created.data.rows.map((r) => r._id);
    const docIds = [];
    for (let i = 0; i < 100; i++) {
      const doc = await api.call("POST", "/document", {
        token: tokens.next(),
        body: { projectId: u.projectId, name: `Doc ${i}`, type: "DOCUMENT" },
      });
      const id = doc.data._id;
      docIds.push(id);
      const blocks = Array.from({ length: 20 }, (_, b) => ({
        id: `b${b}`,
        type: "paragraph",
        text: `Paragraph ${b} of document ${i}`,
      }));
      await api.call("PUT", `/document/${id}/content`, { token: tokens.next(), body: { blocks } });
      await api.call("PUT", `/document/${id}/settings`, { token: tokens.next(), body: { listTemplateId: "tpl" } });
      const target = i > 0 ? docIds[i - 1] : id;
      await api.call("POST", "/clause-reference", {
        token: tokens.next(),
        body: { _id: `c-${id}`, blockId: "b0", documentId: id, hierarchy: `${target}/b3` },
      });
      await api.call("POST", "/table/reference", {
        token: tokens.next(),
        body: {
          documentId: id,
          tableId: table.data._id,
          columnId: nameCol,
          relatedRowId: rowIds[i],
          rowId: rowIds[i + 100],
          type: "reference",
        },
      });
    }
    for (const n of [1, 10, 100]) {
      const body = JSON.stringify({ projectId: u.projectId, documentIds: docIds.slice(0, n) });
      const samples = [];
      let trips = 0;
      for (let i = 0; i < runs + 1; i++) {
        const t0 = performance.now();
        const res = await fetch(`${api.url}/export/get-documents-data`, {
          method: "POST",
          headers: { authorization: `Bearer ${u.token}`, "content-type": "application/json" },
          body,
        });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`E5 answered ${res.status}`);
        if (i > 0) samples.push(performance.now() - t0); // first call warms up
        trips = Number(res.headers.get("x-d1-round-trips"));
      }
      rows.push({ documents: n, "E5 p50 ms": median(samples).toFixed(1), "D1 round trips": trips });
    }
  } finally {
    api.stop();
  }
  printTable("E5 latency and D1 round trips by number of documents", rows);
}
