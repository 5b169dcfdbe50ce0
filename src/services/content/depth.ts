/**
 * The nesting bound every content write checks (docs/api-guide.md › Limits): blocks nest at most MAX_BLOCK_DEPTH
 * deep through `children`, and the JSON as a whole (a block's content, props, tables) at most
 * MAX_CONTENT_JSON_DEPTH, so no walk of stored content — export, search indexing, rendering — meets more. Content
 * PUT and snapshot restore refuse deeper content with 422 naming the path of the first value past the bound; the
 * rooms check the same bound on their updates.
 */
import { MAX_BLOCK_DEPTH } from "../../lib/blockDepth";
import { unprocessable } from "../../errors";

/** Levels of JSON a document's content may nest: a block at the deepest level sits 64 deep, a table's text in it 72. */
export const MAX_CONTENT_JSON_DEPTH = 4 * MAX_BLOCK_DEPTH;

interface Visit {
  value: unknown;
  parent: Visit | null;
  key: string;
  /** The block depth of this value when it is an item of a block list (0 when it is not). */
  block: number;
  json: number;
}

const pathOf = (v: Visit) => {
  const keys: string[] = [];
  for (let at: Visit | null = v; at; at = at.parent) keys.push(at.key);
  return keys.reverse().join(".");
};

/**
 * The first value (in document order) past either bound, as a dot-joined path from `root` with what is wrong, or
 * null. An explicit stack, no recursion; it stops at the first value past a bound, so it never goes deeper.
 */
export function contentDepthProblem(blocks: unknown, root = "blocks"): { path: string; message: string } | null {
  const stack: Visit[] = [{ value: blocks, parent: null, key: root, block: 0, json: 1 }];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (v.block > MAX_BLOCK_DEPTH)
      return { path: pathOf(v), message: `Blocks nest at most ${MAX_BLOCK_DEPTH} deep (through children)` };
    if (v.json > MAX_CONTENT_JSON_DEPTH)
      return { path: pathOf(v), message: `Content nests at most ${MAX_CONTENT_JSON_DEPTH} levels of JSON deep` };
    const { value } = v;
    if (typeof value !== "object" || value === null) continue;
    // A block list is the top-level array and the `children` of a block in one.
    const isBlockList = Array.isArray(value) && (v.parent === null || (v.key === "children" && v.parent.block > 0));
    const entries = Array.isArray(value) ? value.map((item, i) => [String(i), item] as const) : Object.entries(value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entries[i]!;
      stack.push({
        value: item,
        parent: v,
        key,
        block: isBlockList ? (v.parent === null ? 1 : v.parent.block + 1) : 0,
        json: v.json + 1,
      });
    }
  }
  return null;
}

/** 422 when `blocks` nest past the bounds; `what` names the content in the message ("Content", "The snapshot's content"). */
export function assertContentDepth(blocks: unknown, what = "Content", root = "blocks"): void {
  const problem = contentDepthProblem(blocks, root);
  if (problem) throw unprocessable(`${what} nests too deeply at ${problem.path}: ${problem.message}`, [problem]);
}
