/**
 * How deep a document's blocks may nest (docs/api-guide.md › Limits): every write path (content PUT, Markdown import,
 * a room's updates, snapshot restores) refuses deeper content, so no walk of stored blocks — export, search indexing,
 * rendering — ever meets more than this, and none needs recursion proportional to what a client sent.
 */
export const MAX_BLOCK_DEPTH = 32;

/**
 * The nesting depth of a JSON block list (1 for top-level blocks without children), measured without recursion.
 * Stops counting once past `limit`, so the answer is at most `limit + 1` and the walk never goes deeper than that.
 */
export function blockDepth(blocks: unknown, limit = MAX_BLOCK_DEPTH): number {
  let deepest = 0;
  const stack: { list: unknown; depth: number }[] = [{ list: blocks, depth: 1 }];
  while (stack.length > 0) {
    const { list, depth } = stack.pop()!;
    if (!Array.isArray(list) || list.length === 0) continue;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const block of list) {
      if (typeof block === "object" && block !== null && "children" in block) {
        stack.push({ list: (block as { children: unknown }).children, depth: depth + 1 });
      }
    }
  }
  return deepest;
}
