// Portal routes (docs/scaling.md "Portal routes"): a portal's slug, and its domain once verified, are claimed in the
// directory's portal_routes before the entry is written in its organization's shard database, so two claims racing
// on two shard databases cannot both win; the scheduler's reconcilePortalRoutes repairs a claim or a release
// interrupted between the directory and the shard.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser, type RegisteredUser } from "../support/harness";
import { entryOf, publishTxt } from "../support/portalDomains";
import { shardBindingOfId } from "../../src/tenancy/kernel/ids";
import { reconcilePortalRoutes } from "../../src/services/portals/routes";

let n = 0;
const uniqueSlug = () => `route-${Date.now().toString(36)}-${++n}-${Math.random().toString(36).slice(2, 6)}`;

interface Owner {
  user: RegisteredUser;
  binding: string;
}

/** Two owners whose organizations were placed on two different shard databases (registering until they differ). */
async function ownersOnTwoShards(): Promise<[Owner, Owner]> {
  const first = await registerUser("Route A");
  const a = { user: first, binding: shardBindingOfId(first.organizationId)! };
  for (let i = 0; i < 40; i++) {
    const other = await registerUser("Route B");
    const binding = shardBindingOfId(other.organizationId)!;
    if (binding !== a.binding) return [a, { user: other, binding }];
  }
  throw new Error("no two organizations on different shard databases after 40 registrations");
}

async function newProject(owner: Owner): Promise<string> {
  const project = await ok("POST", "/project", {
    token: owner.user.token,
    body: { workspaceId: owner.user.workspaceId, name: "Routed" },
  });
  return project.data._id as string;
}

const publish = (owner: Owner, projectId: string, slug: string) =>
  call("POST", `/project/${projectId}/publish`, { token: owner.user.token, body: { slug } });

const routeOf = (name: string) =>
  env.DB.prepare(`SELECT name, project_id, claimed_at FROM portal_routes WHERE name = ?1`)
    .bind(name)
    .first<{ project_id: string; claimed_at: number }>();

describe("portal routes in the directory", () => {
  let a: Owner;
  let b: Owner;
  beforeAll(async () => {
    [a, b] = await ownersOnTwoShards();
    expect(a.binding).not.toBe(b.binding);
  });

  it("two projects on two shard databases claiming one slug at the same instant: exactly one wins, the other is 409", async () => {
    for (let round = 0; round < 3; round++) {
      const [pa, pb] = await Promise.all([newProject(a), newProject(b)]);
      const slug = uniqueSlug();
      const answers = await Promise.all([publish(a, pa, slug), publish(b, pb, slug)]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      const lost = answers.find((r) => r.status === 409)!;
      expectError(lost, 409, "ConflictError");
      expect(lost.body.message).toBe("This slug is already in use");
      const winner = answers[0]!.status === 200 ? pa : pb;
      expect((await routeOf(`slug:${slug}`))?.project_id).toBe(winner);
      // Only the winner's shard holds the entry.
      const held = await Promise.all(
        [a, b].map((o) =>
          env[o.binding as "SHARD_0"]!.prepare(`SELECT project_id FROM published_entries WHERE slug = ?1`)
            .bind(slug)
            .all(),
        ),
      );
      expect(held.flatMap((r) => r.results)).toEqual([{ project_id: winner }]);
    }
  });

  it("a claim whose shard write never happened holds the slug until the repair deletes its route", async () => {
    const slug = uniqueSlug();
    const [stranded, pb] = await Promise.all([newProject(a), newProject(b)]);
    const now = Date.now();
    // The directory's half of a publish of `stranded` whose shard write failed: a route, no entry.
    await env.DB.prepare(`INSERT INTO portal_routes (name, project_id, claimed_at) VALUES (?1, ?2, ?3)`)
      .bind(`slug:${slug}`, stranded, now)
      .run();
    const refused = await publish(b, pb, slug);
    expectError(refused, 409, "ConflictError");
    expect(refused.body.message).toBe("This slug is already in use");

    // Within the grace period the route is left alone (the claim's shard write may still be on its way).
    await reconcilePortalRoutes(env, now + 60_000);
    expect(await routeOf(`slug:${slug}`)).not.toBeNull();

    const repaired = await reconcilePortalRoutes(env, now + 10 * 60_000);
    expect(repaired.deleted).toBeGreaterThanOrEqual(1);
    expect(await routeOf(`slug:${slug}`)).toBeNull();
    const published = await publish(b, pb, slug);
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect((await routeOf(`slug:${slug}`))?.project_id).toBe(pb);
    // A route whose entry exists is not the repair's to delete, however old.
    await reconcilePortalRoutes(env, Date.now() + 60 * 60_000);
    expect((await routeOf(`slug:${slug}`))?.project_id).toBe(pb);
  });

  it("an entry whose route is missing gets it back from the repair; a competing claim on another shard is then 409", async () => {
    const slug = uniqueSlug();
    const [pa, pb] = await Promise.all([newProject(a), newProject(b)]);
    expect((await publish(a, pa, slug)).status).toBe(200);
    // As an entry published before routes existed (or a claim whose route was lost): the route row is gone.
    await env.DB.prepare(`DELETE FROM portal_routes WHERE name = ?1`).bind(`slug:${slug}`).run();
    expect(await routeOf(`slug:${slug}`)).toBeNull();

    const repaired = await reconcilePortalRoutes(env, Date.now());
    expect(repaired.added).toBeGreaterThanOrEqual(1);
    expect((await routeOf(`slug:${slug}`))?.project_id).toBe(pa);

    const refused = await publish(b, pb, slug);
    expectError(refused, 409, "ConflictError");
    expect(refused.body.message).toBe("This slug is already in use");
  });

  it("the back-fill with since = 0 reaches entries however old (what adoption runs at npm start)", async () => {
    const slug = uniqueSlug();
    const pa = await newProject(a);
    expect((await publish(a, pa, slug)).status).toBe(200);
    await env.DB.prepare(`DELETE FROM portal_routes WHERE name = ?1`).bind(`slug:${slug}`).run();
    await env[a.binding as "SHARD_0"]!.prepare(`UPDATE published_entries SET updated_at = 1 WHERE slug = ?1`)
      .bind(slug)
      .run();
    await reconcilePortalRoutes(env, Date.now());
    expect(await routeOf(`slug:${slug}`)).toBeNull();
    await reconcilePortalRoutes(env, Date.now(), 0);
    expect((await routeOf(`slug:${slug}`))?.project_id).toBe(pa);
  });

  it("unpublishing frees the slug for another organization's project; disabling does not", async () => {
    const slug = uniqueSlug();
    const [pa, pb] = await Promise.all([newProject(a), newProject(b)]);
    expect((await publish(a, pa, slug)).status).toBe(200);
    await ok("PATCH", `/project/${pa}/publish/${slug}`, { token: a.user.token, body: { disabled: true } });
    expectError(await publish(b, pb, slug), 409, "ConflictError");
    await ok("DELETE", `/project/${pa}/publish/${slug}`, { token: a.user.token });
    expect(await routeOf(`slug:${slug}`)).toBeNull();
    const published = await publish(b, pb, slug);
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect((await routeOf(`slug:${slug}`))?.project_id).toBe(pb);
  });

  it("a slug refused on the directory leaves no route behind; a refused domain gives back the slug it took", async () => {
    const slug = uniqueSlug();
    const [pa, pb] = await Promise.all([newProject(a), newProject(b)]);
    expect((await publish(a, pa, slug)).status).toBe(200);
    // The slug's owner republishing its own slug: the shard's index refuses it, and its route stays.
    expectError(await publish(a, pa, slug), 409, "ConflictError");
    expect((await routeOf(`slug:${slug}`))?.project_id).toBe(pa);
    // Another project's claim of a fresh slug with a verified domain held elsewhere (a route, as after verification).
    const domain = `${uniqueSlug()}.example.org`;
    await env.DB.prepare(`INSERT INTO portal_routes (name, project_id, claimed_at) VALUES (?1, ?2, ?3)`)
      .bind(`domain:${domain}`, pa, Date.now())
      .run();
    const fresh = uniqueSlug();
    const refused = await call("POST", `/project/${pb}/publish`, {
      token: b.user.token,
      body: { slug: fresh, domain },
    });
    expectError(refused, 409, "ConflictError");
    expect(refused.body.message).toBe("This domain is already used by another portal");
    expect(await routeOf(`slug:${fresh}`)).toBeNull();
  });

  it("a pending domain takes no route; of two portals on two shards verifying it at once one wins; changing the domain releases it", async () => {
    const domain = `${uniqueSlug()}.example.org`;
    const [pa, pb] = await Promise.all([newProject(a), newProject(b)]);
    const [sa, sb] = [uniqueSlug(), uniqueSlug()];
    const claim = (o: Owner, p: string, slug: string) =>
      ok("POST", `/project/${p}/publish`, { token: o.user.token, body: { slug, domain } });
    const [ra, rb] = await Promise.all([claim(a, pa, sa), claim(b, pb, sb)]);
    expect(await routeOf(`domain:${domain}`)).toBeNull();
    for (const [r, slug] of [
      [ra, sa],
      [rb, sb],
    ] as const) {
      const v = entryOf(r.data, slug).domainVerification!;
      await publishTxt(v.txtName, v.txtValue);
    }
    const verify = (o: Owner, p: string, slug: string) =>
      call("POST", `/project/${p}/publish/${slug}/verify-domain`, { token: o.user.token, body: {} });
    const answers = await Promise.all([verify(a, pa, sa), verify(b, pb, sb)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const [winner, loser] =
      answers[0]!.status === 200
        ? [
            { o: a, p: pa, slug: sa },
            { o: b, p: pb, slug: sb },
          ]
        : [
            { o: b, p: pb, slug: sb },
            { o: a, p: pa, slug: sa },
          ];
    expect((answers.find((r) => r.status === 409)!.body as { message: string }).message).toBe(
      "This domain is already used by another portal",
    );
    expect((await routeOf(`domain:${domain}`))?.project_id).toBe(winner.p);

    // The winner moves to another domain: the verified one's route is released, and the other portal can verify it.
    await ok("PATCH", `/project/${winner.p}/publish/${winner.slug}`, {
      token: winner.o.user.token,
      body: { domain: `${uniqueSlug()}.example.org` },
    });
    expect(await routeOf(`domain:${domain}`)).toBeNull();
    await ok("POST", `/project/${loser.p}/publish/${loser.slug}/verify-domain`, {
      token: loser.o.user.token,
      body: {},
    });
    expect((await routeOf(`domain:${domain}`))?.project_id).toBe(loser.p);
  });
});
