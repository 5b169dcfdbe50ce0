/** Portal domain ownership in tests: publish the entry's TXT record on the loopback resolver, then verify. */
import { env } from "cloudflare:test";
import { ok } from "./harness";

type Entry = {
  slug: string;
  domain: string;
  domainVerification?: { status: string; txtName: string; txtValue: string };
};

/** Publishes a TXT record on the test resolver (test/setup/doh-server.ts). */
export async function publishTxt(name: string, value: string) {
  const res = await fetch(new URL("/records", env.DOH_URL!), { method: "POST", body: JSON.stringify({ name, value }) });
  if (res.status !== 204) throw new Error(`publishing the TXT record failed: ${res.status}`);
}

/** The entry `slug` as the project record shows it. */
export function entryOf(project: { published: Entry[] }, slug: string): Entry {
  const entry = project.published.find((e) => e.slug === slug);
  if (!entry) throw new Error(`no entry ${slug}`);
  return entry;
}

/** Proves ownership of the entry's domain as its owner would: the TXT record it asks for, then verify-domain. */
export async function verifyDomain(token: string, projectId: string, slug: string) {
  const project = (await ok("GET", `/project/${projectId}`, { token })).data;
  const v = entryOf(project, slug).domainVerification!;
  await publishTxt(v.txtName, v.txtValue);
  return (await ok("POST", `/project/${projectId}/publish/${slug}/verify-domain`, { token, body: {} })).data;
}
