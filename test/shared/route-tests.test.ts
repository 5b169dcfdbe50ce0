/// <reference types="vite/client" />
/**
 * Tests you find by name (test/README.md): every folder of src/routes has its tests in test/routes/<same name>, and
 * test/routes has no folder for a resource src/routes no longer has. A folder without tests of its own needs an
 * entry in ROUTES_WITHOUT_TESTS saying where its routes are tested instead.
 */
import { describe, expect, it } from "vitest";

// Only the keys (file names) are read; the modules are never loaded.
const routeFiles = Object.keys(
  import.meta.glob("../../src/routes/**/*.{ts,tsx}", { query: "?raw", import: "default" }),
);
const testFiles = Object.keys(import.meta.glob("../routes/**/*.test.ts", { query: "?raw", import: "default" }));

/** Route folders whose tests live elsewhere, each with the reason. None today. */
const ROUTES_WITHOUT_TESTS: Record<string, string> = {};

/** The first folder under `root` of each file path, e.g. "tables" for ".../src/routes/tables/get.ts". */
function folders(paths: string[], root: string): Set<string> {
  const out = new Set<string>();
  for (const p of paths) {
    const rest = p.slice(p.indexOf(root) + root.length).split("/");
    if (rest.length > 1) out.add(rest[0]!);
  }
  return out;
}

describe("test layout", () => {
  const routeFolders = folders(routeFiles, "src/routes/");
  const testFolders = folders(testFiles, "routes/");

  it("sees the route and test trees", () => {
    expect(routeFolders.size).toBeGreaterThan(20);
    expect(testFolders.size).toBeGreaterThan(20);
  });

  it("every src/routes/<resource> has tests in test/routes/<resource> (or a reasoned exception)", () => {
    const missing = [...routeFolders].filter((f) => !testFolders.has(f) && !(f in ROUTES_WITHOUT_TESTS));
    expect(missing).toEqual([]);
  });

  it("every test/routes/<resource> names a folder of src/routes, and every exception is still needed", () => {
    expect([...testFolders].filter((f) => !routeFolders.has(f))).toEqual([]);
    expect(Object.keys(ROUTES_WITHOUT_TESTS).filter((f) => !routeFolders.has(f) || testFolders.has(f))).toEqual([]);
  });
});
