import { hash } from 'node:crypto';

const VARIANT = '89ab';

/**
 * The workspace id of a synced row: a name-based uuid (version 5 layout) of the source, the type
 * and the app's id, so a row keeps its id across syncs and processes without a lookup table.
 * (One-shot `hash` and string work: this runs for every row of every page. The parts are joined,
 * not concatenated: `join` builds one flat string, where a template of five slices gives a tree
 * of string pieces that the Map, the uuid check and the database driver would each flatten first.)
 */
export function entityId(sourceId: string, type: string, itemId: string): string {
  const x = hash('sha1', `${sourceId}\0${type}\0${itemId}`, 'hex');
  // Version 5 in the high nibble of byte 6, variant 10 in the two high bits of byte 8.
  const variant = VARIANT[Number.parseInt(x[16] as string, 16) & 3];
  return [
    x.slice(0, 8),
    x.slice(8, 12),
    `5${x.slice(13, 16)}`,
    variant + x.slice(17, 20),
    x.slice(20, 32),
  ].join('-');
}
