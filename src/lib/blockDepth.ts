/**
 * How deep a document's blocks may nest (docs/api-guide.md › Limits): every write path (content PUT and snapshot
 * restore: src/services/content/depth.ts; Markdown import: src/services/markdown; a room's updates:
 * src/durable/room/nesting.ts) refuses deeper content, so no walk of stored blocks — export, search indexing,
 * rendering — meets more than this.
 */
export const MAX_BLOCK_DEPTH = 32;
