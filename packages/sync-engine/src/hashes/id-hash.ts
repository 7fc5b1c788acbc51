/**
 * A 64-bit hash of a string, as two 32-bit halves, computed in one pass without allocating.
 * The kit keeps hashes instead of the ids themselves so that a sync of millions of rows fits in
 * a few bytes per row. Two independent 32-bit hashes (FNV-1a and a multiply-rotate hash, each
 * finished with murmur3's mixer) make a collision between two of n ids about n² / 2⁶⁵: one in
 * 300,000 runs of ten million rows.
 */
export function hashId(text: string): { hi: number; lo: number } {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0xcc9e2d51);
    b = (b << 15) | (b >>> 17);
    b = Math.imul(b, 0x1b873593);
  }
  return { hi: fmix(a) >>> 0, lo: fmix(b ^ text.length) >>> 0 };
}

function fmix(h: number): number {
  let x = h ^ (h >>> 16);
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return x ^ (x >>> 16);
}
