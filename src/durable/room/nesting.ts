/**
 * How deep an update would nest the shared document, measured before it is applied (docs/api-guide.md › Limits,
 * src/lib/blockDepth.ts): a Yjs item never changes parent, so the deepest the document can be after an update is the
 * deepest of what it holds and of the types the update adds. Each added type's depth is its parent's plus one, where
 * the parent is named in the update (an id or a root name) or is that of the item it was inserted next to; parents
 * are found in the update, in the room's pending structs or in the document. Nothing recurses on what a client sent:
 * chains of parents and neighbours are followed with an explicit stack, so the walk costs the update's size.
 */
import * as Y from "yjs";
import { MAX_BLOCK_DEPTH } from "../../lib/blockDepth";

/** Nested XML types of any kind (blocks, their content nodes, tables, inline nodes): four per block level and slack. */
export const MAX_NODE_DEPTH = 4 * MAX_BLOCK_DEPTH + 8;

/** Depth of a type: `nodes` types on its path from the root (itself included), `blocks` of them blockContainers. */
export interface Nesting {
  nodes: number;
  blocks: number;
}

const ROOT: Nesting = { nodes: 0, blocks: 0 };

/** A struct as decoded from an update: `parent` is a root name, the id of its parent item, or null (inferred). */
type Decoded = Y.Item & { parent: string | Y.ID | null };

const isType = (item: Y.Item | Y.GC | undefined): item is Y.Item =>
  item instanceof Y.Item && item.content instanceof Y.ContentType;
const below = (parent: Nesting, item: Y.Item): Nesting => {
  const type = (item.content as Y.ContentType).type;
  return {
    nodes: parent.nodes + 1,
    blocks: parent.blocks + (type instanceof Y.XmlElement && type.nodeName === "blockContainer" ? 1 : 0),
  };
};

/** Whether `nesting` fits the limits (a block count over MAX_BLOCK_DEPTH, or nodes over MAX_NODE_DEPTH, does not). */
export const withinLimits = (n: Nesting) => n.blocks <= MAX_BLOCK_DEPTH && n.nodes <= MAX_NODE_DEPTH;

/**
 * The deepest nesting the types added by `update` (with the document's pending structs, which it may complete)
 * would have once applied to `doc`; ROOT when it adds none. Types whose parent cannot be found yet stay pending in
 * Yjs and are measured when the update that completes them arrives. Throws on bytes that are not an update.
 */
export function deepestAdded(doc: Y.Doc, update: Uint8Array): Nesting {
  return new Probe(doc, update).deepest();
}

type Step = { done: Nesting | null } | { wait: Decoded; then: (n: Nesting) => Nesting | null };

class Probe {
  /** The update's items the document does not hold yet, per client in clock order. */
  private readonly added = new Map<number, Decoded[]>();
  private readonly heldDepth = new Map<Y.AbstractType<unknown>, Nesting>();
  /** Depth of each added item's parent (null: not found, or not a type: the item stays pending or is dropped). */
  private readonly parentDepth = new Map<Decoded, Nesting | null>();

  constructor(
    private readonly doc: Y.Doc,
    update: Uint8Array,
  ) {
    const pending = doc.store.pendingStructs?.update;
    for (const bytes of pending ? [update, pending] : [update]) {
      for (const struct of Y.decodeUpdate(bytes).structs) {
        if (!(struct instanceof Y.Item) || struct.id.clock < Y.getState(doc.store, struct.id.client)) continue;
        const list = this.added.get(struct.id.client) ?? [];
        list.push(struct as Decoded);
        this.added.set(struct.id.client, list);
      }
    }
    for (const list of this.added.values()) list.sort((a, b) => a.id.clock - b.id.clock);
  }

  deepest(): Nesting {
    let deepest = ROOT;
    for (const list of this.added.values()) {
      for (const item of list) {
        if (!isType(item)) continue;
        const parent = this.resolve(item);
        if (!parent) continue;
        const n = below(parent, item);
        deepest = { nodes: Math.max(n.nodes, deepest.nodes), blocks: Math.max(n.blocks, deepest.blocks) };
      }
    }
    return deepest;
  }

  /** The added struct holding `id`, else the document's, else null. */
  private find(id: Y.ID): { added: Decoded } | { held: Y.Item | Y.GC } | null {
    const list = this.added.get(id.client);
    if (list) {
      let lo = 0;
      let hi = list.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const s = list[mid]!;
        if (id.clock < s.id.clock) hi = mid - 1;
        else if (id.clock >= s.id.clock + s.length) lo = mid + 1;
        else return { added: s };
      }
    }
    if (id.clock < Y.getState(this.doc.store, id.client)) return { held: Y.getItem(this.doc.store, id) };
    return null;
  }

  /** Depth of a type the document holds, walking up its integrated parents. */
  private depthOfHeld(type: Y.AbstractType<unknown>): Nesting {
    const known = this.heldDepth.get(type);
    if (known) return known;
    let n = ROOT;
    for (let t: Y.AbstractType<unknown> | null = type; t?._item; t = t._item.parent as Y.AbstractType<unknown> | null)
      n = below(n, t._item);
    this.heldDepth.set(type, n);
    return n;
  }

  /** An item's parent depth, or which added item's parent depth it waits for and how it follows from it. */
  private step(item: Decoded): Step {
    if (typeof item.parent === "string") return { done: ROOT };
    if (item.parent) {
      const found = this.find(item.parent);
      if (!found) return { done: null };
      if ("held" in found)
        return { done: isType(found.held) ? this.depthOfHeld((found.held.content as Y.ContentType).type) : null };
      const parent = found.added;
      return isType(parent) ? { wait: parent, then: (n) => below(n, parent) } : { done: null };
    }
    // As Yjs integrates it: the right neighbour's parent when there is one, else the left's.
    const neighbour = item.rightOrigin ?? item.origin;
    const found = neighbour ? this.find(neighbour) : null;
    if (!found) return { done: null };
    if ("held" in found)
      return {
        done:
          found.held instanceof Y.Item && found.held.parent
            ? this.depthOfHeld(found.held.parent as Y.AbstractType<unknown>)
            : null,
      };
    return { wait: found.added, then: (n) => n };
  }

  /** `start`'s parent depth, following chains of added parents and neighbours with an explicit stack. */
  private resolve(start: Decoded): Nesting | null {
    const stack: Decoded[] = [start];
    const visiting = new Set<Decoded>();
    while (stack.length > 0) {
      const item = stack[stack.length - 1]!;
      if (this.parentDepth.has(item)) {
        stack.pop();
        continue;
      }
      const next = this.step(item);
      if ("done" in next) {
        this.parentDepth.set(item, next.done);
        stack.pop();
      } else if (this.parentDepth.has(next.wait)) {
        const n = this.parentDepth.get(next.wait)!;
        this.parentDepth.set(item, n ? next.then(n) : null);
        stack.pop();
      } else if (visiting.has(next.wait)) {
        // A cycle of made-up references: Yjs cannot integrate it either.
        this.parentDepth.set(item, null);
        stack.pop();
      } else {
        visiting.add(item);
        stack.push(next.wait);
      }
    }
    return this.parentDepth.get(start) ?? null;
  }
}
