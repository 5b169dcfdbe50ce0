// ESLint (typescript-eslint, flat config): the layers import one way, plus ESLint's and typescript-eslint's
// recommended rules. Run by npm test (scripts/test.mjs); alone: node scripts/lib/tools.mjs eslint src test
// ESLint and its plugins live in tools/node_modules (tools/package.json, installed on first use by
// scripts/lib/tools.mjs), so they are loaded from there rather than from the service's own dependencies.
// Every exception below says why it exists; a "pending" one names the work that removes it.
import { createRequire } from "node:module";

const require = createRequire(new URL("./tools/package.json", import.meta.url));
const js = require("@eslint/js");
const tseslint = require("typescript-eslint");
import readBeforeAuthentication from "./eslint/readBeforeAuthentication.mjs";

// ── Layers ─────────────────────────────────────────────────────────────────────────────────────────────────
// app.ts and index.ts compose everything. routes → services → db, lib (and auth, errors, env, schemas);
// http/ is the edge that routes use. Services stay free of HTTP; lib depends on no other part of src; the
// event bus (services/events) is used by the writers and consumed by automations, never the reverse.
// Relative specifiers are matched by the src folder they climb to, whatever their depth ("../../http/range");
// "./x" stays inside the importing folder.
const up = (dir) => `^(\\.\\./)+${dir}(/|$)`;

/** Each restriction has a name, so an exception can lift exactly one. */
const R = {
  routes: { regex: up("routes"), message: "Only app.ts mounts routes; nothing else imports them." },
  site: { regex: up("site"), message: "The reader site is mounted by app.ts; other layers do not import it." },
  http: {
    regex: up("http"),
    message:
      "Services are transport-free: the route parses HTTP (Range, ETag, Idempotency-Key) and hands plain values in.",
  },
  appOrOpenapi: {
    regex: "^(\\.\\./)+(app|openapi)$",
    message: "The app and its OpenAPI registry are the edge; services do not import them.",
  },
  hono: {
    regex: "^(hono|@hono/.+)(/.*)?$",
    message: "Services are transport-free: no Hono or @hono/* (plain zod for schemas).",
  },
  automations: {
    regex: "^(\\.{1,2}/)+automations(/|$)",
    message: "Writers emit through services/events; only the automations consume them (and import themselves).",
  },
  siblingService: {
    regex: "^\\.\\./[^./][^/]*/",
    message:
      "services/events depends on no other service: tables, content, documents use it and automations consume it.",
  },
  leaveLib: {
    regex: "^\\.\\./(?!\\.\\./converter/)",
    message: "lib/ is the bottom layer: it imports no other part of src (the converter's shared zip code excepted).",
  },
  db: { regex: up("db"), message: "Routes hold no queries: they call services." },
  drizzle: { regex: "^drizzle-orm(/.*)?$", message: "Routes hold no queries: they call services." },
  durable: { regex: up("durable"), message: "Routes reach Durable Objects through services." },
  upperFromDb: {
    regex: up("(routes|http|services|auth|durable|site|app|openapi)"),
    message: "db/ is below the services: it imports none of the layers above it.",
  },
  tenancy: {
    regex: "^(\\.{1,2}/)+tenancy(/|$)",
    message:
      'Tenancy stays behind its boundary (docs/architecture.md "Tenancy"): services use their context (ctx.ids, ctx.on, ctx.everyShard, ctx.byShard; src/services/context.ts); only the files TENANCY_DOORS names import src/tenancy.',
  },
  tenancyInside: {
    regex: "^(\\.{1,2}/)+tenancy/(kernel|operations)(/|$)",
    message: "Import the tenancy module through its face, src/tenancy/index.ts.",
  },
  upperFromTenancy: {
    regex: up("(routes|http|services|auth|durable|site|app|openapi)"),
    message:
      "The tenancy module is below the services: it imports none of the layers above it (the entry point hands it the services' repairs).",
  },
  kernelToOperations: {
    regex: "^(\\.\\./)+operations(/|$)",
    message: "The tenancy kernel is below its operations (moves, repairs): it imports none of them.",
  },
};

/** Layer groups: files (disjoint, by ignores) and the restrictions they obey. */
const SERVICES = ["routes", "site", "http", "appOrOpenapi", "hono", "tenancy"];
const LAYERED = [
  "src/services/**",
  "src/routes/**",
  "src/lib/**",
  "src/db/**",
  "src/auth/**",
  "src/http/**",
  "src/durable/**",
  "src/schemas/**",
  "src/tenancy/**",
];
const layers = [
  { name: "services/automations", files: ["src/services/automations/**"], rules: SERVICES },
  { name: "services/events", files: ["src/services/events/**"], rules: [...SERVICES, "siblingService", "automations"] },
  {
    name: "services",
    files: ["src/services/**"],
    ignores: ["src/services/automations/**", "src/services/events/**"],
    rules: [...SERVICES, "automations"],
  },
  { name: "routes", files: ["src/routes/**"], rules: ["site", "db", "drizzle", "durable", "tenancy"] },
  { name: "lib", files: ["src/lib/**"], rules: ["leaveLib", "hono"] },
  { name: "db", files: ["src/db/**"], rules: ["upperFromDb", "hono", "tenancy"] },
  {
    name: "auth, http, durable, schemas",
    files: ["src/auth/**", "src/http/**", "src/durable/**", "src/schemas/**"],
    rules: ["routes", "site", "tenancy"],
  },
  {
    name: "tenancy/kernel",
    files: ["src/tenancy/kernel/**"],
    rules: ["upperFromTenancy", "kernelToOperations", "hono"],
  },
  { name: "tenancy/operations", files: ["src/tenancy/operations/**"], rules: ["upperFromTenancy", "hono"] },
  { name: "tenancy face", files: ["src/tenancy/index.ts"], rules: ["upperFromTenancy", "hono"] },
  { name: "entry, app, site and the rest", files: ["src/**"], ignores: LAYERED, rules: ["tenancy"] },
];

/**
 * The only files outside src/tenancy that import the tenancy module (through its face, src/tenancy/index.ts), each
 * with its reason; every other file reaches tenancy through its service context.
 */
const TENANCY_DOORS = [
  // The context is built over the kernel: ids (ctx.ids), routing (ctx.on, everyShard, byShard), the fence's SQL.
  { file: "src/services/context.ts", lifts: "tenancy" },
  // The entry point: the scheduled handler hands the services' repairs to the module's upkeep.
  { file: "src/index.ts", lifts: "tenancy" },
  // The cross-organization automations: triggers watching other shards' projects, cascades and queue messages by database.
  { file: "src/services/automations/shards.ts", lifts: "tenancy" },
  // The operator's shard move (POST /admin/shards/…): a route over the module's move operation.
  { file: "src/routes/admin/moveShard.ts", lifts: "tenancy" },
];

/**
 * Files allowed one named restriction of their layer, each with its reason: { file, lifts: "<restriction>" }.
 * Besides the tenancy doors, none: IdSchema (OpenAPI zod) lives in src/schemas/ids.ts, the If-Match check that
 * throws the service's 412 in src/services/preconditions.ts, and the formula expression types import nothing.
 * @type {{ file: string, lifts: keyof typeof R }[]}
 */
const exceptions = [...TENANCY_DOORS];

const restrict = (names) => [
  "error",
  { patterns: names.map((n) => ({ regex: R[n].regex, caseSensitive: true, message: R[n].message })) },
];
const layerBlocks = layers.map((l) => ({
  name: `layer: ${l.name}`,
  files: l.files,
  ...(l.ignores ? { ignores: l.ignores } : {}),
  rules: { "no-restricted-imports": restrict(l.rules) },
}));
const inGlob = (file, glob) => (glob.endsWith("/**") ? file.startsWith(glob.slice(0, -2)) : file === glob);
const exceptionBlocks = exceptions.map((e) => {
  const layer = layers.find(
    (l) => l.files.some((g) => inGlob(e.file, g)) && !(l.ignores ?? []).some((g) => inGlob(e.file, g)),
  );
  if (!layer || !layer.rules.includes(e.lifts))
    throw new Error(`eslint.config.mjs: exception ${e.file} lifts ${e.lifts}, which its layer does not have`);
  // A door still comes in through the face, never a kernel or operations file.
  const rules = [...layer.rules.filter((n) => n !== e.lifts), ...(e.lifts === "tenancy" ? ["tenancyInside"] : [])];
  return { name: `exception: ${e.file}`, files: [e.file], rules: { "no-restricted-imports": restrict(rules) } };
});

export default tseslint.config(
  { ignores: ["node_modules/**", "tools/**", "client/**", "converter/**", "migrations/**", ".wrangler/**", "dist/**"] },
  { files: ["**/*.{ts,tsx}"], extends: [js.configs.recommended, ...tseslint.configs.recommended] },
  {
    files: ["**/*.{ts,tsx}"],
    rules: {
      // The compiler's noUnusedLocals/noUnusedParameters conventions: a leading _ marks a deliberately unused
      // name, and a member taken out of an object by destructuring (to keep the rest) is not "unused".
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none", ignoreRestSiblings: true },
      ],
      // `let [y, m, d] = …` where only some are reassigned stays one destructuring.
      "prefer-const": ["error", { destructuring: "all" }],
      // `let x = initial; try { x = … } catch { … }` keeps x definitely assigned for the compiler; the initial
      // value being overwritten on the success path is the point, not a dead store.
      "no-useless-assignment": "off",
      // An empty catch says "keep what we had" (a best-effort parse); the code around it states the fallback.
      "no-empty": ["error", { allowEmptyCatch: true }],
      // Control characters in patterns are deliberate here: file names and CSV/Markdown text are cleaned of them,
      // and \u0000–\u0002 serve as private delimiters (Excel number formats, search highlights) no input can contain.
      "no-control-regex": "off",
    },
  },
  ...layerBlocks,
  ...exceptionBlocks,
  {
    // One base64 helper (src/lib/base64.ts); test/shared/base64.test.ts also looks for byte-to-char loops.
    name: "base64 only in lib",
    files: ["src/**"],
    ignores: ["src/lib/**"],
    rules: {
      "no-restricted-globals": [
        "error",
        ...["btoa", "atob"].map((name) => ({ name, message: "Use src/lib/base64.ts (one base64 helper)." })),
      ],
    },
  },
  {
    // Files that fit in a head: no file under src/ over 400 lines, counted as `wc -l` counts them (blank lines
    // and comments included, so a file cannot stay long by being well commented). A file that grows past it is
    // split along a seam (columns.ts → columnSlugs.ts, markdown convert.ts → toMarkdown.ts).
    name: "file length",
    files: ["src/**"],
    rules: { "max-lines": ["error", { max: 400, skipBlankLines: false, skipComments: false }] },
  },
  {
    // Functions that fit in a head: no function under src/ over 60 lines. Blank lines and comments are not counted:
    // an explained step should not push a function over. A function that reads best whole says so where it stands,
    // with its reason (`eslint-disable-next-line max-lines-per-function -- <why>`).
    name: "function length",
    files: ["src/**"],
    rules: { "max-lines-per-function": ["error", { max: 60, skipBlankLines: true, skipComments: true }] },
  },
  {
    // A query on ctx.db/ctx.dir written before the function's read(): on a route whose authentication rides in its
    // first read it would run unauthenticated (the run-time guard's 500). docs/architecture.md, "Reads before
    // authentication"; the rule is eslint/readBeforeAuthentication.mjs.
    name: "read before authentication",
    files: ["src/services/**"],
    plugins: { house: { rules: { "read-before-authentication": readBeforeAuthentication } } },
    rules: { "house/read-before-authentication": "error" },
  },
  {
    // A route calls its service verb as verb(ctx, input) with an object input (docs/architecture.md, "Layers"):
    // not a bare value picked out of the request (`c.req.valid("param").id`), a literal, or a third argument.
    name: "verbs take an object input",
    files: ["src/routes/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        ...["CallExpression[arguments.0.callee.name='ctxOf']", "CallExpression[arguments.0.name='ctx']"].flatMap((call) => [
          { selector: `${call}[arguments.length>2]`, message: "A service verb takes (ctx, input): put the values in the input object." },
          {
            selector: `${call} > .arguments:nth-child(2):matches(MemberExpression, Literal, TemplateLiteral)`,
            message: "A service verb takes (ctx, input) with an object input: pass c.req.valid(...) or { name: value }.",
          },
        ]),
      ],
    },
  },
  {
    // Raw D1 statements only in the db layer and the tenancy module (docs/architecture.md, "Statements"): a service
    // builds a raw statement with src/db/d1.ts's statement(), in its area's queries.ts, never with `.prepare()`.
    // No exception.
    name: "no raw prepare in services",
    files: ["src/services/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.property.name='prepare']",
          message: "Raw D1 is for src/db and src/tenancy: build the statement with statement() (src/db/d1.ts) in the area's queries.ts.",
        },
      ],
    },
  },
  {
    name: "tests",
    files: ["test/**"],
    rules: {
      // Tests read the service's JSON answers, whose shape each assertion checks; typing every body adds nothing.
      "@typescript-eslint/no-explicit-any": "off",
    },
  },
  {
    // Portal blocks are stored JSON from clients; the renderer checks each member at run time before using it.
    files: ["src/site/blocks.tsx"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // The Container base class (@cloudflare/containers) is declared over DurableObjectState<{}>.
    files: ["src/services/converter/container.ts"],
    rules: { "@typescript-eslint/no-empty-object-type": "off" },
  },
);
