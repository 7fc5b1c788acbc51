/**
 * Postgres settings of the embedded database. PGlite's defaults size shared buffers for a server
 * (128 MB of WebAssembly memory); a sample database and a keyset read of one page at a time need
 * far less, and every megabyte here is a megabyte of the app's RSS. Measured in the README.
 */
export const PGLITE_SETTINGS = ['shared_buffers=16MB', 'wal_buffers=1MB', 'work_mem=4MB'];
