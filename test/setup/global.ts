import type { TestProject } from "vitest/node";

/**
 * Runs in Node before the workerd pool starts. Later issues start the real PDF converter here and
 * `provide` its URL; until then the Worker sees an empty CONVERTER_URL.
 */
export default async function setup(project: TestProject) {
  project.provide("converterUrl", "");
  project.provide("converterSecret", "");
  return async () => {};
}
