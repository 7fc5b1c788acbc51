// Entry of the `weft` bin: runs in the user's folder (see userFolder) with the process's streams.
import { userFolder } from './io.js';
import { run } from './program.js';
import { exitQuietlyOnClosedPipe } from './quiet-pipe.js';

exitQuietlyOnClosedPipe();

const cwd = userFolder(process.env, process.cwd());
// The conformance kit reads `--account file.json` from the current folder: make that the user's.
if (cwd !== process.cwd()) process.chdir(cwd);
process.exitCode = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd,
});
