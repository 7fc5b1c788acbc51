// `weft --help | head -1`: the reader closes the pipe after the lines it wants, and the next write
// fails with EPIPE. That is the reader's choice, not a failure of weft: the process ends quietly
// (status 0), as `cat` or `git` do, instead of a stack trace for an unhandled 'error' event.

/** Makes a closed stdout or stderr end the process quietly; any other stream error is thrown. */
export function exitQuietlyOnClosedPipe(
  streams: NodeJS.WriteStream[] = [process.stdout, process.stderr],
): void {
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(0);
    });
  }
}
