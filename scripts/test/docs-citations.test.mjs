// The repository stands on its own: no comment, README or doc points at design notes outside it, and every
// citation of docs/api-guide.md names a section (a heading) or a bold term the guide has.
// node --test scripts/test/ (npm test runs it in its "scripts" stage).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { ROOT } from "../lib/proc.mjs";

const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
  cwd: ROOT,
  encoding: "utf8",
})
  .split("\0")
  .filter(
    (f) =>
      /\.(ts|tsx|mjs|js|md|json|jsonc|toml|yaml)$/.test(f) &&
      !/(^|\/)package-lock\.json$/.test(f) &&
      f !== "scripts/test/docs-citations.test.mjs",
  );
const read = (f) => {
  try {
    return readFileSync(path.join(ROOT, f), "utf8");
  } catch {
    return ""; // listed but deleted in the work tree
  }
};

const guide = read("docs/api-guide.md");
const names = [...guide.matchAll(/^#+\s+(.+)$/gm), ...guide.matchAll(/\*\*([^*]+?)\*\*/g)].map((m) =>
  m[1].trim().replace(/[.:]$/, "").toLowerCase(),
);

/** What each citation of the guide names: the text after `docs/api-guide.md ›` or `docs/api-guide.md, "…"`. */
function citations(text) {
  return [...text.matchAll(/docs\/api-guide\.md(?: ›|,) (?:"([^"]+)"|([^\n]+))/g)].map((m) => (m[1] ?? m[2]).trim());
}
/** A citation starts with a heading or bold term of the guide (a shorter form of one counts, "HTTP semantics"). */
const known = (cited) => {
  const n = cited.toLowerCase();
  return names.some(
    (h) =>
      (n.startsWith(h) && !/^[a-z0-9]/.test(n.slice(h.length))) ||
      (h.startsWith(n.split(/[)"]/)[0]) && n.split(/[)"]/)[0].length >= 4),
  );
};

describe("documentation inside the repository", () => {
  test("sees the guide and the tree", () => {
    assert.ok(names.includes("formulas") && names.includes("limits"), "the guide's headings are read");
    assert.ok(files.length > 200);
    assert.deepEqual(citations(`(docs/api-guide.md › Limits; Errors)\n(docs/api-guide.md, "Published portals")`), [
      "Limits; Errors)",
      "Published portals",
    ]);
    assert.equal(known("Limits; Errors)"), true);
    assert.equal(known("HTTP semantics)"), true);
    assert.equal(known("No such section)"), false);
    assert.equal(known("Limitless)"), false);
  });

  test("nothing points at design notes outside the repository", () => {
    const outside = /\b(API|ARCHITECTURE)\.md\b|\.\.\/shared\b|interface-specification/;
    assert.deepEqual(
      files.filter((f) => outside.test(read(f))),
      [],
    );
  });

  test("every citation of docs/api-guide.md names one of its sections or bold terms", () => {
    const unknown = files.flatMap((f) =>
      citations(read(f))
        .filter((c) => !known(c))
        .map((c) => `${f}: ${c}`),
    );
    assert.deepEqual(unknown, []);
  });
});
