import { rawD1, seedUser, startApi, time } from "./lib.mjs";

export default async function () {
  const api = await startApi();
  try {
    const u = await seedUser(api);
    const { ms } = await time(() => api.call("GET", `/project/${u.projectId}`, { token: u.token }));
    const raw = await rawD1();
    const r = await time(() => raw.db.prepare("SELECT 1").all());
    await raw.dispose();
    console.log({ apiGetProjectMs: ms.toFixed(1), rawSelectMs: r.ms.toFixed(1) });
  } finally {
    await api.stop();
  }
}
