/**
 * Values written as JSON arrays of at most `maxBytes` UTF-8 bytes each, for statements that take a batch of rows as
 * one bound JSON value (`json_each(?)`): D1 limits a bound value's size, so a large batch is split into several.
 * The size of each value is bounded by its UTF-16 length × 3 (no encoding needed), so a chunk may come out smaller
 * than the limit, never larger.
 */
export function jsonArrayChunks(values: readonly unknown[], maxBytes: number): string[] {
  const chunks: string[] = [];
  let parts: string[] = [];
  let bytes = 2;
  for (const value of values) {
    const entry = JSON.stringify(value);
    const size = entry.length * 3 + 1;
    if (parts.length && bytes + size > maxBytes) {
      chunks.push(`[${parts.join(",")}]`);
      parts = [];
      bytes = 2;
    }
    parts.push(entry);
    bytes += size;
  }
  if (parts.length) chunks.push(`[${parts.join(",")}]`);
  return chunks;
}
