// npm run shard:move -- <logical | organization id> <binding> [--url http://127.0.0.1:8787] [--grace 30] [--keep-old-copy] [--max-calls N]
// Moves logical shard <logical> (or the one an organization-scoped id names) to the shard database <binding> (SHARD_0 … SHARD_n) of a running API, local or
// deployed, with the Worker-side copy (docs/scaling.md "Moving a logical shard"): POST /admin/shards/move copies,
// verifies and switches while the shard's organizations are read-only, in steps (each call does at most --max-calls
// D1 calls, default the route's, and answers a cursor the next call passes back); then, after --grace seconds (Workers that
// have not yet learned the switch may still read the old copy), POST /admin/shards/drop deletes the old copy.
// A move refused once it has begun (a page of the copy differed) leaves the shard writable where it was and its copy
// fenced off in <binding>: the command then deletes that copy with POST /admin/shards/abort, call after call until done.
// `npm run shard:move -- <logical | organization id> [<binding>] --abort` stops a move that is under way and deletes what
// it copied the same way (the target found from the fences unless named).
// ADMIN_TOKEN comes from the environment or .dev.vars; the URL from --url, API_URL, or the local wrangler dev default.
import path from "node:path";
import { readDevVars } from "./lib/devvars.mjs";
import { ROOT } from "./lib/proc.mjs";

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 2)[1] : undefined;
};
const base = option("--url") ?? process.env.API_URL ?? "http://127.0.0.1:8787";
const grace = Number(option("--grace") ?? 30);
const maxCallsText = option("--max-calls");
const maxCalls = maxCallsText === undefined ? undefined : Number(maxCallsText);
const keep = args.includes("--keep-old-copy");
const abort = args.includes("--abort");
const [shardText, binding] = args.filter((a) => !a.startsWith("--"));
const logical = logicalOf(shardText ?? "");
if (
  !Number.isInteger(logical) ||
  ((!abort || binding !== undefined) && !/^SHARD_\d+$/.test(binding ?? "")) ||
  !(grace >= 0) ||
  (maxCalls !== undefined && !(Number.isInteger(maxCalls) && maxCalls >= 10 && maxCalls <= 900))
) {
  console.error(
    "usage: npm run shard:move -- <logical shard 0–479, or an id of its organization> <SHARD_k> [--url URL] [--grace seconds] [--keep-old-copy] [--max-calls 10–900]\n" +
      "       npm run shard:move -- <logical shard, or an id of its organization> [<SHARD_k>] --abort [--url URL] [--max-calls 10–900]\n" +
      "         (stops a move that is under way and deletes what it copied)",
  );
  process.exit(2);
}
/**
 * A logical shard given as its number, or as an organization-scoped id (28 characters), whose last two characters
 * are its logical shard in Crockford base 32 (docs/scaling.md "Id format").
 */
function logicalOf(text) {
  if (/^\d{1,3}$/.test(text)) return Number(text);
  const digits = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  if (text.length !== 28) return NaN;
  const [hi, lo] = [digits.indexOf(text[26].toUpperCase()), digits.indexOf(text[27].toUpperCase())];
  return hi < 0 || lo < 0 ? NaN : hi * 32 + lo;
}

const token = process.env.ADMIN_TOKEN ?? readDevVars(path.join(ROOT, ".dev.vars")).ADMIN_TOKEN;
if (!token) {
  console.error("shard:move needs ADMIN_TOKEN (in the environment or .dev.vars)");
  process.exit(2);
}

async function post(route, body, { alreadyDone, onRefusal } = {}) {
  const res = await fetch(`${base}${route}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  }).catch((error) => {
    console.error(
      `No API at ${base} (${error.cause?.code ?? error.message}): start it with npm start, or name it with --url`,
    );
    process.exit(1);
  });
  const parsed = await res.json().catch(() => null);
  // Moving a shard to the database that serves it already has nothing to do: said, and not an error.
  if (res.status === 409 && alreadyDone?.test(parsed?.message ?? "")) {
    console.log(parsed.message);
    process.exit(0);
  }
  if (!res.ok) {
    console.error(`POST ${route} → ${res.status} ${parsed?.message ?? JSON.stringify(parsed)}`);
    await onRefusal?.(res.status, parsed?.message ?? "");
    process.exit(1);
  }
  return parsed.data;
}

/**
 * POST /admin/shards/abort until it answers done: a move under way stops (its shard writable again where it was), then
 * what it copied into its target is deleted, each call within the route's budget of D1 calls. The first call names
 * the target if `to` is given, else the route finds it; the later calls name the one it found.
 */
async function stopAndClean(to) {
  let rows = 0;
  let answer;
  do {
    answer = await post("/admin/shards/abort", {
      logical,
      ...((answer?.to ?? to) && { to: answer?.to ?? to }),
      ...(maxCalls && { maxCalls }),
    });
    if (answer.stopped)
      console.log(
        `Stopped the move of logical shard ${logical}: its organizations are writable again in ${answer.from}`,
      );
    rows += answer.rows;
  } while (!answer.done);
  if (answer.to) console.log(`Deleted what the move had copied: ${rows} rows from ${answer.to}`);
}

if (abort) {
  await stopAndClean(binding);
  process.exit(0);
}

// Interrupted between steps, the move leaves the shard read-only: say how to go on or back.
process.once("SIGINT", () => {
  console.error(
    `\nInterrupted: logical shard ${logical} stays read-only until the move runs again (the same command) or is stopped (npm run shard:move -- ${logical} ${binding} --abort)`,
  );
  process.exit(130);
});

// The move, a step at a time: each answer is either the next step's cursor and where the move stands, or the summary.
let moved;
let cursor;
let shown = "";
for (;;) {
  const step = await post(
    "/admin/shards/move",
    { logical, to: binding, ...(cursor && { cursor }), ...(maxCalls && { maxCalls }) },
    {
      alreadyDone: cursor ? undefined : /is served by .* already/,
      onRefusal: async (status, message) => {
        // Refused once under way (its copy differed, or it was stopped): the shard is writable where it was; delete the copy.
        if (status === 409 && (cursor || / differs from /.test(message))) {
          console.error(`Deleting what the move copied into ${binding}…`);
          await stopAndClean(binding);
        } else if (cursor) {
          console.error(
            `The move stopped part way: run the same command again (it starts over), or stop it and delete its copy (npm run shard:move -- ${logical} ${binding} --abort)`,
          );
        }
      },
    },
  );
  if (step.done) {
    moved = step;
    break;
  }
  cursor = step.cursor;
  const p = step.progress;
  const line = `${p.phase} ${p.table} (${p.tableIndex + 1}/${p.tables}): ${p.rowsCopied} rows copied, ${p.rowsVerified} verified`;
  if (line !== shown) console.log(line);
  shown = line;
}
const total = Object.values(moved.rows).reduce((a, n) => a + n, 0);
console.log(
  `logical shard ${logical}: ${moved.from} → ${moved.to}, ${total} rows copied and verified; read-only for ${moved.readOnlyMs} ms`,
);
console.log(
  `Record it in src/tenancy/kernel/map.ts at the next deploy: SHARD_MAP.moved[${logical}] = ${moved.to.slice("SHARD_".length)}`,
);
if (keep) {
  console.log(
    `The old copy stays in ${moved.from}; drop it later with POST /admin/shards/drop {"logical": ${logical}, "from": "${moved.from}"}`,
  );
} else {
  if (grace > 0) {
    console.log(`Waiting ${grace} s before dropping the old copy in ${moved.from}…`);
    await new Promise((r) => setTimeout(r, grace * 1000));
  }
  // As many calls as the old copy needs, each within the route's budget of D1 calls.
  let rows = 0;
  for (let done = false; !done;) {
    const dropped = await post("/admin/shards/drop", { logical, from: moved.from, ...(maxCalls && { maxCalls }) });
    rows += dropped.rows;
    done = dropped.done;
  }
  console.log(`Dropped the old copy: ${rows} rows deleted from ${moved.from}`);
}
