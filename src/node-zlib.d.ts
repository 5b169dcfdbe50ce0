// workerd provides node:zlib under nodejs_compat; the Worker's type set has no Node types, so the few functions
// used are declared here: crc32 by the ZIP inflation check shared with the converter (converter/src/inflate.ts),
// the rest by the converter's test fixtures (converter/test/fixtures.ts), which build ZIP bombs.
declare module "node:zlib" {
  export const constants: { Z_FULL_FLUSH: number };
  export function crc32(data: Uint8Array | string, value?: number): number;
  export function deflateRawSync(data: Uint8Array, options?: { finishFlush?: number; level?: number }): Uint8Array;
}
