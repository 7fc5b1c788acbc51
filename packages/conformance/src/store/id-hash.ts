// The hashes moved to the sync engine, which shares them with its drift check.
export { hashId } from '@weft/sync-engine';
