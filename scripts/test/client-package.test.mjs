// The installable client (client/, @workspace-edge/client): `npm pack` builds dist/ (ESM + declarations) and packs
// it; the tarball is installed into an empty temporary project without a registry (--offline; its one dependency,
// openapi-fetch, and that one's own, packed from this repository's node_modules), the tour of client/README.md is
// typechecked there against the installed declarations and run against a fresh local service (as npm start runs it).
// Prints the packed size. node --test scripts/test/ (npm test runs it in its "scripts" stage).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { BIN, ROOT } from "../lib/proc.mjs";
import { npmCommand } from "../lib/tools.mjs";
import { ADMIN_TOKEN, startApi } from "../bench/lib.mjs";

const CLIENT = path.join(ROOT, "client");
const work = mkdtempSync(path.join(os.tmpdir(), "client-package-"));
const project = path.join(work, "app");
after(() => rmSync(work, { recursive: true, force: true }));

function npm(args, cwd) {
  const [cmd, ...pre] = npmCommand();
  const res = spawnSync(cmd, [...pre, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" },
  });
  assert.equal(res.status, 0, `npm ${args.join(" ")} in ${cwd} failed:\n${res.stdout}\n${res.stderr}`);
  return res.stdout;
}

/** `npm pack --json` of a directory into `work`: [{ filename, size, unpackedSize, entryCount, files, version }]. */
function pack(dir, extra = []) {
  const out = npm(["pack", dir, "--json", "--pack-destination", work, ...extra], CLIENT);
  return JSON.parse(out.slice(out.indexOf("[")))[0];
}

/** A package's directory as installed in this repository (the client workspace first, then the root). */
function installed(name) {
  const dir = [path.join(CLIENT, "node_modules", name), path.join(ROOT, "node_modules", name)].find((d) =>
    existsSync(path.join(d, "package.json")),
  );
  assert.ok(dir, `${name} is not installed (npm install at the repository root)`);
  return dir;
}

/** The ```ts blocks of client/README.md, in order: one module. */
const readmeTour = () =>
  [...readFileSync(path.join(CLIENT, "README.md"), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((m) => m[1])
    .join("\n");

describe("the installable client (@workspace-edge/client)", () => {
  let packed;
  before(() => {
    packed = pack(CLIENT);
  });

  test("npm pack builds ESM JavaScript with declarations; the tarball holds dist/, README and package.json only", (t) => {
    const files = packed.files.map((f) => f.path).sort();
    assert.deepEqual(files, [
      "README.md",
      "dist/filter.d.ts",
      "dist/filter.js",
      "dist/index.d.ts",
      "dist/index.js",
      "dist/schema.d.ts",
      "package.json",
    ]);
    const manifest = JSON.parse(readFileSync(path.join(CLIENT, "package.json"), "utf8"));
    assert.equal(manifest.private, undefined, "the client must not be private");
    assert.equal(manifest.type, "module");
    assert.deepEqual(manifest.exports["."], {
      types: "./dist/index.d.ts",
      import: "./dist/index.js",
      default: "./dist/index.js",
    });
    // The service release it was generated from, and the /openapi.json version its types come from.
    assert.equal(manifest.version, JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).version);
    assert.equal(manifest.openapi.infoVersion, "current");
    const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
    const line = `packed client ${packed.filename}: ${kb(packed.size)} (unpacked ${kb(packed.unpackedSize)}, ${packed.entryCount} files)`;
    t.diagnostic(line);
    console.log(line);
  });

  test("installed from the tarball into an empty project (offline), the README tour typechecks and runs against the service", async () => {
    writeFileSync(path.join(work, "package.json"), "{}");
    const deps = ["openapi-fetch", "openapi-typescript-helpers"].map(
      (name) => pack(installed(name), ["--ignore-scripts"]).filename,
    );
    spawnSync("mkdir", ["-p", project]);
    writeFileSync(
      path.join(project, "package.json"),
      JSON.stringify({ name: "client-package-test", private: true, type: "module" }, null, 2),
    );
    npm(
      [
        "install",
        "--offline",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        ...[packed.filename, ...deps].map((f) => path.join(work, f)),
      ],
      project,
    );
    const pkgDir = path.join(project, "node_modules", "@workspace-edge", "client");
    assert.ok(existsSync(path.join(pkgDir, "dist", "index.js")), "the package is installed with its dist/");
    assert.ok(!existsSync(path.join(pkgDir, "src")), "no TypeScript source is installed");

    // Types: the tour against the installed declarations, resolved through the exports map (no path into the repository).
    writeFileSync(path.join(project, "tour.ts"), readmeTour());
    writeFileSync(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ["node"],
          typeRoots: [path.join(ROOT, "node_modules", "@types")],
          lib: ["ES2023", "DOM"],
        },
        include: ["tour.ts"],
      }),
    );
    const tsc = spawnSync(
      process.execPath,
      [path.join(CLIENT, "node_modules", "typescript", "bin", "tsc"), "-p", project],
      { encoding: "utf8" },
    );
    assert.equal(
      tsc.status,
      0,
      `the README tour does not typecheck against the installed package:\n${tsc.stdout}${tsc.stderr}`,
    );

    // Run: the same file (Node 22 strips the types) against a fresh service, as a user whose token npm start printed.
    const api = await startApi();
    try {
      const reg = await api.call("POST", "/admin/users", {
        token: ADMIN_TOKEN,
        body: { email: `client-package-${Date.now()}@example.com`, name: "Package" },
      });
      const node = existsSync(path.join(BIN, "node")) ? path.join(BIN, "node") : process.execPath;
      const run = spawnSync(node, ["tour.ts"], {
        cwd: project,
        encoding: "utf8",
        env: { ...process.env, BASE: api.url, TOKEN: reg.data.token.token },
        timeout: 60_000,
      });
      assert.equal(run.status, 0, `the README tour failed:\n${run.stdout}\n${run.stderr}`);
      for (const expected of [
        /^signed in as client-package-.*@example\.com, working in "/m,
        /^documents: (FOLDER Drafts, DOCUMENT Lease|DOCUMENT Lease, FOLDER Drafts)$/m,
        /^content version \d+$/m,
        /^stale write refused: 412 PreconditionFailedError$/m,
        /^upsert: 1 updated, 1 created$/m,
        /^3 rows$/m,
        /^same project both times: true$/m,
        /^404 NotFoundError: /m,
        /^400 ValidationError: name: /m,
      ]) {
        assert.match(run.stdout, expected);
      }
    } finally {
      await api.stop();
    }
  });
});
