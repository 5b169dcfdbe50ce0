// E9 upload throughput: a 40 MiB mp3 streamed through POST /media/audio on a real local API, beside a raw R2 put
// of the same bytes (same local engine) in the same run. Reports MiB/s for both and API/raw as a ratio.
import { median, printTable, rawD1, seedUser, startApi, time } from "./lib.mjs";

const SIZE = 40 * 1024 * 1024;
const RUNS = 5;
const MiB = 1024 * 1024;

function mp3Bytes(n) {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 131 + 17) & 0xff;
  out.set([0xff, 0xfb, 0x90, 0x64]); // an MPEG-1 Layer III frame header
  return out;
}

export default async function () {
  const bytes = mp3Bytes(SIZE);
  const api = await startApi();
  const raw = await rawD1();
  try {
    const u = await seedUser(api);
    const doc = await api.call("POST", "/document", {
      token: u.token,
      body: { projectId: u.projectId, name: "Bench audio", type: "DOCUMENT" },
    });
    const query = new URLSearchParams({
      workspaceId: u.workspaceId,
      documentId: doc.data._id,
      fileName: "bench.mp3",
      mimeType: "audio/mpeg",
    });

    const apiMs = [];
    const rawMs = [];
    // One warm-up of each, then alternate so drift hits both sides alike.
    await api.call("POST", `/media/audio?${query}`, {
      token: u.token,
      raw: bytes,
      headers: { "content-type": "application/octet-stream" },
    });
    await raw.r2.put("bench/warmup", bytes);
    for (let i = 0; i < RUNS; i++) {
      const a = await time(() =>
        api.call("POST", `/media/audio?${query}`, {
          token: u.token,
          raw: bytes,
          headers: { "content-type": "application/octet-stream" },
        }),
      );
      if (!a.out?.data?.url) throw new Error("upload answered without a url");
      apiMs.push(a.ms);
      const r = await time(() => raw.r2.put(`bench/${i}`, bytes));
      rawMs.push(r.ms);
    }
    const apiMedian = median(apiMs);
    const rawMedian = median(rawMs);
    const apiRate = SIZE / MiB / (apiMedian / 1000);
    const rawRate = SIZE / MiB / (rawMedian / 1000);
    printTable(`E9 upload of ${SIZE / MiB} MiB, median of ${RUNS}`, [
      { path: "POST /media/audio (API)", medianMs: apiMedian.toFixed(0), MiBps: apiRate.toFixed(1) },
      { path: "raw R2 put (same bytes)", medianMs: rawMedian.toFixed(0), MiBps: rawRate.toFixed(1) },
    ]);
    console.log(`throughput ratio API/raw = ${(apiRate / rawRate).toFixed(2)}`);
  } finally {
    await raw.dispose();
    api.stop();
  }
}
