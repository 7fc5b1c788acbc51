/**
 * Versions of the third-party tools a scaffolded app uses: the ones this repo is tested with
 * (test/versions.test.ts keeps them equal to the root package.json's).
 */
export const TOOL_VERSIONS = {
  tsx: '^4.23.15',
  typescript: '5.9.3',
  vitest: '^4.1.12',
  '@types/node': '^20.19.0',
} as const;

/**
 * The weft packages an app depends on, directly or through the CLI (`weft dev` brings the local
 * workspace and the sync engine, `weft types` the client, both the namespace codec), all at the
 * CLI's own version.
 */
export const WEFT_PACKAGES = [
  '@weft/core',
  '@weft/conformance',
  '@weft/date-range',
  '@weft/cli',
  '@weft/client',
  '@weft/workspace',
  '@weft/sync-engine',
  '@weft/namespace',
] as const;
export type WeftPackage = (typeof WEFT_PACKAGES)[number];
