/**
 * Publishing a project (docs/api-guide.md › Automations, published portals, collaborative editing): entries with a slug unique across the service (and an optional domain, also
 * unique once verified; ./domains.ts), homepage, PBKDF2-hashed password, disabled flag, expiry and indexing switch;
 * and the portal branding.
 * Project admins (workspace owner/admin) only. Each write is one D1 batch that changes `published_entries` and
 * rewrites the project's `published` JSON mirror from it, so the two never disagree.
 */
import { and, eq, isNotNull, or, sql } from "drizzle-orm";
import { projects, publishedEntries, type PublishedBranding } from "../../db/schema";
import type { Db } from "../../env";
import { conflict, unprocessable } from "../../errors";
import { brandingAudit, entryChanges, publishedAudit, unpublishedAudit, updatedAudit } from "./audit";
import type { ServiceContext } from "../context";
import { isUniqueViolation } from "../../db/errors";
import { projectDto } from "../workspaces/serialize";
import { hashPassword } from "./password";
import { domainRoute, releaseRoutesQuietly, slugRoute, withClaimedRoutes, type RouteNames } from "./routes";
import { MASKED_PASSWORD } from "./state";
import { predictedMirror } from "./mirror";
import { loadForWrite, loadProjectForWrite } from "./entryReads";
import { ENTRY_DOMAIN, fingerprintOf, mirror, projectFingerprint } from "./queries";
import { keptAnswerUpdates } from "../idempotency";
import { newDomainToken, txtName, txtRecordProves, txtValue, verificationOff } from "./domains";

export interface PublishInput {
  slug: string;
  domain?: string;
  homepage?: string;
  password?: string | null;
  expiresAt?: number | null;
  allowIndexing?: boolean;
}

export interface EntryPatch {
  domain?: string;
  homepage?: string;
  password?: string | null;
  disabled?: boolean;
  expiresAt?: number | null;
  allowIndexing?: boolean;
}

/** The domain columns of a claim of `domain`: a fresh TXT token, verified at once only with DOMAIN_VERIFICATION=off. */
function claimColumns(ctx: ServiceContext, domain: string) {
  if (!domain) return { domain: null, domainToken: null, domainVerifiedAt: null };
  return { domain, domainToken: newDomainToken(), domainVerifiedAt: verificationOff(ctx) ? ctx.now : null };
}

/**
 * The directory's names of a domain claim (./routes.ts): its route when the domain is verified at once, else only
 * a check that no other portal holds it verified (a pending domain takes no route; the first to verify wins).
 */
function domainNames(columns: ReturnType<typeof claimColumns>): RouteNames {
  if (!columns.domain) return { claim: [], check: [] };
  const name = domainRoute(columns.domain);
  return columns.domainVerifiedAt !== null ? { claim: [name], check: [] } : { claim: [], check: [name] };
}

function uniqueFailure(err: unknown): never {
  if (isUniqueViolation(err, "published_entries.slug")) throw conflict("This slug is already in use");
  if (isUniqueViolation(err, "published_entries.domain"))
    throw conflict("This domain is already used by another portal");
  throw err;
}

async function refreshMirror(
  ctx: ServiceContext,
  projectId: string,
  write: Parameters<Db["batch"]>[0][number],
  audit: Parameters<Db["batch"]>[0][number][] = [],
) {
  const { db } = ctx;
  try {
    const rows = (
      await db.batch([
        // The audit entries first: they compare what the write changes with what is stored.
        ...audit,
        write,
        db
          .update(projects)
          .set({ published: mirror(projectId) as never, updatedAt: ctx.now })
          .where(eq(projects.id, projectId))
          .returning(),
      ] as unknown as Parameters<Db["batch"]>[0])
    ).at(-1);
    return projectDto((rows as (typeof projects.$inferSelect)[])[0]!, ctx.now);
  } catch (err) {
    uniqueFailure(err);
  }
}

/**
 * The second line behind the directory's portal routes (./routes.ts): a slug, or a verified domain, held by a portal
 * in another shard database whose route is missing — an entry from before routes existed, or one whose route the
 * repair has not written back yet. Each shard's unique indexes hold only inside it, so this asks every other shard,
 * all at once, in the round trip of the directory's claim (409 when held). Races between claims are decided by the
 * route, not here.
 */
async function refuseHeldElsewhere(ctx: ServiceContext, claim: { slug?: string; domain?: string | null }) {
  const others = ctx.everyShard().filter((shard) => shard.binding !== ctx.binding);
  const held = await Promise.all(
    others.map(({ db }) =>
      db
        .select({ slug: publishedEntries.slug, domain: publishedEntries.domain })
        .from(publishedEntries)
        .where(
          or(
            claim.slug ? eq(publishedEntries.slug, claim.slug) : sql`0`,
            claim.domain
              ? and(eq(publishedEntries.domain, claim.domain), isNotNull(publishedEntries.domainVerifiedAt))
              : sql`0`,
          ),
        )
        .limit(1),
    ),
  );
  const row = held.flat()[0];
  if (!row) return;
  if (claim.slug && row.slug === claim.slug) throw conflict("This slug is already in use");
  throw conflict("This domain is already used by another portal");
}

/** How many times a publish re-reads a project that changed between its read and its write before answering 409. */
const PUBLISH_ATTEMPTS = 3;

/**
 * Adds an entry. Its answer, the project as the write leaves it, is known before the write (./mirror.ts) and kept
 * with it in one batch under the request's Idempotency-Key (docs/api-guide.md › HTTP semantics), so a retry after a
 * crash replays it rather than meeting its own slug (409). The write is guarded by the project row it was predicted
 * from: a project changed meanwhile (another entry, a rename) writes nothing, and the publish reads it again.
 */
export async function publishProject(
  ctx: ServiceContext,
  { projectId, entry: input }: { projectId: string; entry: PublishInput },
) {
  let state = await loadProjectForWrite(ctx, projectId, null, input.homepage, input.domain);
  const columns = claimColumns(ctx, input.domain ?? "");
  const names = domainNames(columns);
  names.claim.unshift(slugRoute(input.slug));
  // The directory's claim beside the other shards' check and the password's hash: one round trip.
  const held = refuseHeldElsewhere(ctx, { slug: input.slug, domain: input.domain ?? null });
  const hashing = input.password ? hashPassword(input.password) : Promise.resolve(null);
  return withClaimedRoutes(ctx, projectId, names, Promise.all([held, hashing]), async () => {
    const row: typeof publishedEntries.$inferSelect = {
      slug: input.slug,
      projectId,
      ...columns,
      homepage: input.homepage ?? "",
      passwordHash: await hashing,
      disabled: false,
      expiresAt: input.expiresAt ?? null,
      allowIndexing: input.allowIndexing ?? false,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    for (let attempt = 1; ; attempt++) {
      const answer = await writeEntry(ctx, row, state);
      if (answer) return answer;
      if (attempt === PUBLISH_ATTEMPTS) throw conflict("The project changed while it was being published; retry");
      state = await loadProjectForWrite(ctx, projectId, null, input.homepage, input.domain);
    }
  });
}

/**
 * One batch: the kept answer, the entry and the refreshed mirror, each only while the project row is the one read
 * (`state.fingerprint`). The answer, or null when the project changed since (nothing was written).
 */
async function writeEntry(
  ctx: ServiceContext,
  row: typeof publishedEntries.$inferSelect,
  state: Awaited<ReturnType<typeof loadProjectForWrite>>,
) {
  const { db } = ctx;
  const { projectId } = row;
  const answer = projectDto(
    { ...state.project, published: predictedMirror(state.entries, row), updatedAt: ctx.now },
    ctx.now,
  );
  const unchanged = sql`${fingerprintOf(projectId)} = ${state.fingerprint}`;
  const p = row;
  try {
    const results = await db.batch([
      db.insert(publishedEntries).select(
        sql`SELECT ${p.slug}, ${p.projectId}, ${p.domain}, ${p.domainToken}, ${p.domainVerifiedAt}, ${p.homepage}, ${p.passwordHash}, ${p.disabled ? 1 : 0},
              ${p.expiresAt}, ${p.allowIndexing ? 1 : 0}, ${p.createdAt}, ${p.updatedAt} WHERE ${unchanged}`,
      ),
      publishedAudit(ctx, p),
      // Before the mirror's refresh, while the project row is still the one read (the insert leaves it alone).
      ...(await keptAnswerUpdates(ctx, { payload: { data: answer }, when: unchanged })),
      db
        .update(projects)
        .set({ published: mirror(projectId) as never, updatedAt: ctx.now })
        .where(and(eq(projects.id, projectId), sql`${projectFingerprint} = ${state.fingerprint}`))
        .returning({ id: projects.id }),
    ]);
    const updated = results[results.length - 1] as unknown[];
    return updated.length > 0 ? answer : null;
  } catch (err) {
    uniqueFailure(err);
  }
}

export async function updatePublishedEntry(
  ctx: ServiceContext,
  { projectId, slug, patch }: { projectId: string; slug: string; patch: EntryPatch },
) {
  const { db } = ctx;
  const current = await loadForWrite(ctx, projectId, slug, patch.homepage, patch.domain);
  // A changed domain is a new claim (new token, pending); the same domain sent back keeps its verification.
  const domainChanged = patch.domain !== undefined && (patch.domain || null) !== (current?.domain ?? null);
  const columns = domainChanged ? claimColumns(ctx, patch.domain ?? "") : null;
  // The route of a verified domain the entry gives up goes once the shard has written the change.
  const released =
    domainChanged && current?.domain && current.domainVerifiedAt !== null ? [domainRoute(current.domain)] : [];
  // "********" is how `published[].password` reads when a password is set: a client sending back what it read
  // (docs/api-guide.md › Conventions) keeps the password rather than setting it to the mask.
  const password = patch.password === MASKED_PASSWORD ? undefined : patch.password;
  const hashing =
    password === undefined ? Promise.resolve(undefined) : password ? hashPassword(password) : Promise.resolve(null);
  const held = patch.domain ? refuseHeldElsewhere(ctx, { domain: patch.domain }) : Promise.resolve();
  const names = columns ? domainNames(columns) : { claim: [], check: [] };
  const project = await withClaimedRoutes(ctx, projectId, names, Promise.all([held, hashing]), async () => {
    const passwordHash = await hashing;
    const { password: _, domain, ...settings } = patch;
    const asStored = { ...settings, ...(domain !== undefined && { domain: domain || null }) };
    const changes = current ? entryChanges(current, asStored, passwordHash) : null;
    return refreshMirror(
      ctx,
      projectId,
      db
        .update(publishedEntries)
        .set({
          ...(columns ?? {}),
          ...(patch.homepage !== undefined && { homepage: patch.homepage }),
          ...(passwordHash !== undefined && { passwordHash }),
          ...(patch.disabled !== undefined && { disabled: patch.disabled }),
          ...(patch.expiresAt !== undefined && { expiresAt: patch.expiresAt }),
          ...(patch.allowIndexing !== undefined && { allowIndexing: patch.allowIndexing }),
          updatedAt: ctx.now,
        })
        .where(and(eq(publishedEntries.slug, slug), eq(publishedEntries.projectId, projectId))),
      updatedAudit(ctx, projectId, slug, changes),
    );
  });
  await releaseRoutesQuietly(ctx, projectId, released);
  return project;
}

/** Removes the entry in its shard, then its routes in the directory (a release left undone is the repair's). */
export async function unpublishProject(ctx: ServiceContext, { projectId, slug }: { projectId: string; slug: string }) {
  const { db } = ctx;
  const entry = (await loadForWrite(ctx, projectId, slug, undefined))!;
  const project = await refreshMirror(
    ctx,
    projectId,
    db.delete(publishedEntries).where(and(eq(publishedEntries.slug, slug), eq(publishedEntries.projectId, projectId))),
    [unpublishedAudit(ctx, projectId, slug)],
  );
  await releaseRoutesQuietly(ctx, projectId, [
    slugRoute(slug),
    ...(entry.domain && entry.domainVerifiedAt !== null ? [domainRoute(entry.domain)] : []),
  ]);
  return project;
}

/**
 * Checks the TXT record of the entry's domain and marks the domain verified when it holds the entry's token (422
 * when it does not, or the entry has no domain; 409 when another portal verified the domain first). The domain's
 * route is claimed in the directory beside the DNS lookup and the other shards' check, and given back when the
 * record does not prove the domain.
 */
export async function verifyEntryDomain(ctx: ServiceContext, { projectId, slug }: { projectId: string; slug: string }) {
  const { db } = ctx;
  const entry = (await loadForWrite(ctx, projectId, slug, undefined, ENTRY_DOMAIN))!;
  const domain = entry.domain;
  if (!domain) throw unprocessable("This entry has no domain to verify", [{ path: "domain", message: "is not set" }]);
  const write = () =>
    refreshMirror(
      ctx,
      projectId,
      db
        .update(publishedEntries)
        .set({ domainVerifiedAt: entry.domainVerifiedAt ?? ctx.now, updatedAt: ctx.now })
        .where(
          and(
            eq(publishedEntries.slug, slug),
            eq(publishedEntries.projectId, projectId),
            eq(publishedEntries.domain, domain),
          ),
        ),
    );
  if (entry.domainVerifiedAt) return write();
  const proof = async () => {
    const proven =
      verificationOff(ctx) ||
      (entry.domainToken !== null && (await txtRecordProves(ctx, { domain, token: entry.domainToken })));
    if (!proven) {
      const problem = `The TXT record ${txtName(domain)} does not hold ${txtValue(entry.domainToken ?? "")} yet (DNS changes can take a few minutes)`;
      throw unprocessable(problem, [{ path: "domain", message: "ownership is not proven by its TXT record" }]);
    }
  };
  // A portal holding the domain elsewhere answers 409 before the record's 422, as before.
  const held = refuseHeldElsewhere(ctx, { domain });
  const proving = proof();
  const checks = Promise.allSettled([held, proving]).then(async () => {
    await held;
    await proving;
  });
  return withClaimedRoutes(ctx, projectId, { claim: [domainRoute(domain)], check: [] }, checks, write);
}

export async function putBranding(
  ctx: ServiceContext,
  { projectId, branding }: { projectId: string; branding: PublishedBranding },
) {
  const { db } = ctx;
  await loadForWrite(ctx, projectId, null, undefined);
  const [, [row]] = await db.batch([
    brandingAudit(ctx, projectId, branding),
    db
      .update(projects)
      .set({ publishedBranding: branding, updatedAt: ctx.now })
      .where(eq(projects.id, projectId))
      .returning(),
  ]);
  return projectDto(row!, ctx.now);
}
