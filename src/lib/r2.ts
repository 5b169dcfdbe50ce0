/** An R2 read whose `onlyIf` failed returns the object without its body (the caller answers 304/412 from it). */
export function hasBody(obj: R2Object | R2ObjectBody): obj is R2ObjectBody {
  return "body" in obj && (obj as R2ObjectBody).body !== undefined;
}

/** A byte range of a stored object, as R2's `range` option takes it (the HTTP layer parses `Range` into one). */
export type ByteRange = { offset: number; length: number };
