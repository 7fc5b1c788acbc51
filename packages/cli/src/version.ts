import { readFileSync } from 'node:fs';

/** This package's version; src/ and dist/ are both one level below package.json. */
export const CLI_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
