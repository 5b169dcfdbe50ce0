// The converter's test fixtures (converter/test/fixtures.ts) build ZIP bombs with node:zlib, which workerd provides
// under nodejs_compat; the Worker's type set has no Node types, so the few functions they use are declared here.
declare module "node:zlib" {
  export const constants: { Z_FULL_FLUSH: number };
  export function crc32(data: Uint8Array | string, value?: number): number;
  export function deflateRawSync(data: Uint8Array, options?: { finishFlush?: number; level?: number }): Uint8Array;
}
