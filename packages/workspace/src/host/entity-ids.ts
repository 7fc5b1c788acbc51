import { createHash } from 'node:crypto';

/**
 * The workspace id of a synced row: a name-based uuid (version 5 layout) of the source, the type
 * and the app's id, so a row keeps its id across syncs and processes without a lookup table.
 */
export function entityId(sourceId: string, type: string, itemId: string): string {
  const h = createHash('sha1').update(`${sourceId}\0${type}\0${itemId}`).digest();
  h[6] = ((h[6] as number) & 0x0f) | 0x50;
  h[8] = ((h[8] as number) & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}
