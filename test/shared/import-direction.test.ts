/// <reference types="vite/client" />
/**
 * Layers import one way (issue 21): the writers (tables, content, documents and the other services) emit events
 * through services/events and never import the automations, which consume those events; and no service imports
 * the HTTP layer, Hono or @hono/*, except the pending exceptions named below.
 */
import { describe, expect, it } from "vitest";

const sources = import.meta.glob("../../src/**/*.{ts,tsx}", {
  query: "?raw",
  import: "default",
  eager: true,
}) as Record<string, string>;

/** The module specifiers a source file imports or re-exports (static and dynamic, types included). */
function importsOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/g)) out.push(m[1]!);
  for (const m of text.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g)) out.push(m[1]!);
  for (const m of text.matchAll(/(?:^|\n)\s*import\s*["']([^"']+)["']/g)) out.push(m[1]!);
  return out;
}

/** `spec` resolved against the importing file, as a path under src/ (bare package names are returned as they are). */
function resolve(fromFile: string, spec: string): string {
  if (!spec.startsWith(".")) return spec;
  const parts = fromFile.split("/").slice(0, -1);
  for (const seg of spec.split("/")) {
    if (seg === "..") parts.pop();
    else if (seg !== ".") parts.push(seg);
  }
  return parts.join("/");
}

const files = Object.entries(sources).map(([path, text]) => ({ path: path.replace(/^.*\/src\//, "src/"), text }));
const services = files.filter((f) => f.path.startsWith("src/services/"));

describe("import direction", () => {
  it("sees the source tree", () => {
    expect(services.length).toBeGreaterThan(50);
    expect(
      importsOf(`import { a } from "../automations/events";\nexport { b } from "../lib/x";\nconst c = import("../y");`),
    ).toEqual(["../automations/events", "../lib/x", "../y"]);
  });

  it("no service outside services/automations imports it (writers emit through services/events)", () => {
    const offenders = services
      .filter((f) => !f.path.startsWith("src/services/automations/"))
      .flatMap((f) =>
        importsOf(f.text)
          .filter((s) => resolve(f.path, s).startsWith("src/services/automations"))
          .map((s) => `${f.path} → ${s}`),
      );
    expect(offenders).toEqual([]);
  });

  it("tables, content and documents use services/events", () => {
    const users = services
      .filter((f) => importsOf(f.text).some((s) => resolve(f.path, s) === "src/services/events/events"))
      .map((f) => f.path);
    for (const dir of ["tables", "content", "documents"])
      expect(users.some((p) => p.startsWith(`src/services/${dir}/`))).toBe(true);
  });

  // No pending exceptions: the formula tree's zod/OpenAPI schemas live in src/schemas/formula.ts.
  const PENDING_TRANSPORT: string[] = [];

  it("no service imports http/, hono or @hono/* (other than the pending exceptions)", () => {
    const offenders = services
      .filter((f) => !PENDING_TRANSPORT.includes(f.path))
      .flatMap((f) =>
        importsOf(f.text)
          .filter((s) => {
            const r = resolve(f.path, s);
            return r.startsWith("src/http/") || r === "hono" || r.startsWith("hono/") || r.startsWith("@hono/");
          })
          .map((s) => `${f.path} → ${s}`),
      );
    expect(offenders).toEqual([]);
  });

  it("the service error (src/errors.ts) is transport-neutral: no hono, @hono/* or http/, and no HTTP status", () => {
    const errors = files.find((f) => f.path === "src/errors.ts")!;
    const transport = importsOf(errors.text).filter((s) => {
      const r = resolve(errors.path, s);
      return r.startsWith("src/http/") || r === "hono" || r.startsWith("hono/") || r.startsWith("@hono/");
    });
    expect(transport).toEqual([]);
    // No status table or getter: each class's status is src/http/errors.ts's to give.
    expect(errors.text).not.toMatch(/get status\(|:\s*[45]\d\d\b/);
  });

  // No exception: the formula engine, plan and store too take the context the formula coordinator (a Durable Object)
  // builds for the system actor.
  it("every exported async service takes the service context first: no db-first twins (statement builders excepted)", () => {
    const offenders = services.flatMap((f) =>
      [...f.text.matchAll(/export async function (\w+)(?:<[^>]*>)?\(\s*(?:db|d1)\s*:/g)].map(
        (m) => `${f.path}: ${m[1]}`,
      ),
    );
    expect(offenders).toEqual([]);
  });

  // One clock: a service reads the request's ctx.now. The context itself starts the clock; block ids only use the
  // time as a unique prefix.
  const CLOCK_OWNERS = ["src/services/context.ts", "src/services/collab/blocks.ts"];

  it("services outside automations/ read ctx.now, not Date.now() or lib/ids now()", () => {
    const offenders = services
      .filter((f) => !/^src\/services\/automations\//.test(f.path) && !CLOCK_OWNERS.includes(f.path))
      .filter(
        (f) =>
          /\bDate\.now\(\)/.test(f.text) ||
          /import\s*\{[^}]*\bnow\b[^}]*\}\s*from\s*["'][./]*lib\/ids["']/.test(f.text),
      )
      .map((f) => f.path);
    expect(offenders).toEqual([]);
  });
});
