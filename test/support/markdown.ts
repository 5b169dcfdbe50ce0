/** A sample Markdown file and its import, shared by the markdown operation tests (test/routes/markdown/). */
import { call } from "./harness";

/** A heading, inline marks, a link, a task list, a table and an image. */
export const SAMPLE_MARKDOWN = [
  "# Plan",
  "",
  "Some **bold** and a [link](https://example.com).",
  "",
  "- [ ] write",
  "- [x] test",
  "",
  "| A | B |",
  "| - | - |",
  "| 1 | 2 |",
  "",
  "![diagram](https://example.com/d.png)",
  "",
].join("\n");

/** POST /document/markdown of `markdown` with the given query, as `token`. */
export function importMarkdown(markdown: string, query: Record<string, string>, token: string) {
  return call("POST", "/document/markdown", {
    token,
    raw: markdown,
    headers: { "content-type": "text/markdown" },
    query,
  });
}
