// npm run bench -- portal: the reader site under wrangler dev (docs/api-guide.md › Automations, published portals, collaborative editing).
// 1. Throughput and p99 of a cached public page beside GET /health on the same server (target ≥ 0.8× /health).
// 2. An uncached render of a 200-block document: a password-protected page (never cached, rendered on every request)
//    and the first view after an edit (a real cache miss). Target p99 ≤ 50 ms.
// 3. D1 round trips of a cached hit (x-d1-round-trips; target 0 or 1).
import { ADMIN_TOKEN, startApi } from "./lib.mjs";

const CONCURRENCY = 8;
const DURATION_MS = 5_000;

function pct(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function load(url, { headers = {}, expect = 200 } = {}) {
  const lat = [];
  const end = Date.now() + DURATION_MS;
  let errors = 0;
  const worker = async () => {
    while (Date.now() < end) {
      const t0 = performance.now();
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      lat.push(performance.now() - t0);
      if (res.status !== expect) errors++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const secs = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  return { rps: lat.length / secs, p50: pct(lat, 50), p99: pct(lat, 99), n: lat.length, errors };
}

async function sequential(n, fn) {
  const lat = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    lat.push(performance.now() - t0);
  }
  lat.sort((a, b) => a - b);
  return { p50: pct(lat, 50), p99: pct(lat, 99), n };
}

function blocks200() {
  const out = [];
  for (let i = 0; i < 200; i++) {
    const kind = i % 10;
    const text = (s) => [{ type: "text", text: s, styles: {} }];
    if (kind === 0)
      out.push({
        id: `h${i}`,
        type: "heading",
        props: { level: 2 },
        content: text(`Section ${i / 10 + 1}`),
        children: [],
      });
    else if (kind === 5)
      out.push({
        id: `b${i}`,
        type: "bulletListItem",
        props: {},
        content: text(`Point ${i}: keep it short and clear.`),
        children: [],
      });
    else if (kind === 7)
      out.push({
        id: `c${i}`,
        type: "checkListItem",
        props: { checked: i % 2 === 0 },
        content: text(`Task ${i}`),
        children: [],
      });
    else
      out.push({
        id: `p${i}`,
        type: "paragraph",
        props: {},
        content: [
          { type: "text", text: `Paragraph ${i} explains a rule in plain words, `, styles: {} },
          { type: "text", text: "with emphasis", styles: { bold: true } },
          { type: "text", text: " and ", styles: {} },
          { type: "link", href: "https://example.com/more", content: text("a link") },
          { type: "text", text: ". Readers should find it easy to scan on any screen.", styles: {} },
        ],
        children: [],
      });
  }
  return out;
}

export default async function () {
  const api = await startApi();
  try {
    const reg = await api.call("POST", "/admin/users", {
      token: ADMIN_TOKEN,
      body: { email: `portal-bench-${Date.now()}@bench.test`, name: "Bench" },
    });
    const token = reg.data.token.token;
    const call = (method, p, body) => api.call(method, p, { token, body });
    const setup = async (slug, password) => {
      const project = (await call("POST", "/project", { workspaceId: reg.data.workspace._id, name: `Bench ${slug}` }))
        .data;
      const doc = (await call("POST", "/document", { projectId: project._id, name: "Long document", type: "DOCUMENT" }))
        .data._id;
      for (let i = 0; i < 20; i++) {
        const d = (await call("POST", "/document", { projectId: project._id, name: `Page ${i}`, type: "DOCUMENT" }))
          .data._id;
        await call("POST", `/document/${d}/publish`, {});
      }
      await call("PUT", `/document/${doc}/content`, { blocks: blocks200() });
      await call("POST", `/document/${doc}/publish`, {});
      await call("POST", `/project/${project._id}/publish`, { slug, ...(password && { password }) });
      return { projectId: project._id, doc };
    };
    const stamp = Date.now().toString(36);
    const pub = await setup(`bench-${stamp}`);
    const prot = await setup(`bench-locked-${stamp}`, "bench password");
    const pageUrl = `${api.url}/site/bench-${stamp}/${pub.doc}`;

    // Warm: the first request renders and stores the page.
    const first = await fetch(pageUrl);
    await first.arrayBuffer();
    const hit = await fetch(pageUrl);
    await hit.arrayBuffer();
    const cacheHeader = hit.headers.get("x-portal-cache");
    const roundTrips = Number(hit.headers.get("x-d1-round-trips"));

    await load(`${api.url}/health`); // warm-up of the connection pool and the isolate
    const health = await load(`${api.url}/health`);
    const cached = await load(pageUrl);

    const login = await fetch(`${api.url}/site/bench-locked-${stamp}/login`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "password=bench+password",
    });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0];
    const protectedUrl = `${api.url}/site/bench-locked-${stamp}/${prot.doc}`;
    const render = await sequential(200, async () => {
      const r = await fetch(protectedUrl, { headers: { cookie } });
      if (r.status !== 200) throw new Error(`protected page answered ${r.status}`);
      await r.arrayBuffer();
    });

    // A real miss: rename the document, then time the first view (which renders and stores).
    const missTimes = [];
    for (let i = 0; i < 30; i++) {
      await call("PATCH", `/document/${pub.doc}`, { name: `Long document ${i}` });
      const t0 = performance.now();
      const r = await fetch(pageUrl);
      await r.arrayBuffer();
      missTimes.push(performance.now() - t0);
      if (r.headers.get("x-portal-cache") !== "miss") throw new Error("expected a miss after an edit");
    }
    missTimes.sort((a, b) => a - b);

    const f = (x) => Number(x.toFixed(1));
    console.table([
      { measure: "GET /health", rps: f(health.rps), p50_ms: f(health.p50), p99_ms: f(health.p99), requests: health.n },
      {
        measure: "cached public page (200 blocks)",
        rps: f(cached.rps),
        p50_ms: f(cached.p50),
        p99_ms: f(cached.p99),
        requests: cached.n,
      },
      {
        measure: "uncached render, protected page (200 blocks)",
        rps: "",
        p50_ms: f(render.p50),
        p99_ms: f(render.p99),
        requests: render.n,
      },
      {
        measure: "first view after an edit (miss, 200 blocks)",
        rps: "",
        p50_ms: f(pct(missTimes, 50)),
        p99_ms: f(pct(missTimes, 99)),
        requests: missTimes.length,
      },
    ]);
    const ratio = cached.rps / health.rps;
    console.log(
      `cached page throughput / /health throughput: ${ratio.toFixed(2)} (target ≥ 0.80) ${ratio >= 0.8 ? "✓" : "✗"}`,
    );
    console.log(`uncached render p99: ${render.p99.toFixed(1)} ms (target ≤ 50 ms) ${render.p99 <= 50 ? "✓" : "✗"}`);
    console.log(
      `cached hit: x-portal-cache ${cacheHeader}, D1 round trips ${roundTrips} (target 0 or 1) ${roundTrips <= 1 ? "✓" : "✗"}`,
    );
    if (health.errors || cached.errors) console.log(`errors: health ${health.errors}, cached ${cached.errors}`);
  } finally {
    await api.stop();
  }
}
