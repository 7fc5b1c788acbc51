// Preloaded with `node --import` by the laziness tests: appends every module URL the process
// loads to the file named by WEFT_IMPORT_TRACE, one a line.
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(`
import { appendFileSync } from 'node:fs';
const file = ${JSON.stringify(process.env.WEFT_IMPORT_TRACE)};
export async function load(url, context, next) {
  appendFileSync(file, url + '\\n');
  return next(url, context);
}`)}`,
);
