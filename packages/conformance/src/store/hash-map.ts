// The hash map moved to the sync engine, which shares it with its drift check.
export { HashMap64 } from '@weft/sync-engine';
