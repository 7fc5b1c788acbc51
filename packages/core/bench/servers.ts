// Child process of the benchmark: serves the same app twice, once through weft and once as a
// hand-written Express app returning the same JSON, so both share one process and one core.
import { hand, weft } from './page-apps.js';

const ports: Record<string, number> = {};
for (const [name, server] of [
  ['weft', weft],
  ['hand', hand],
] as const) {
  ports[name] = await new Promise<number>((resolve) => {
    const s = server.listen(0, '127.0.0.1', () => {
      const address = s.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
}
process.stdout.write(`${JSON.stringify(ports)}\n`);
// The parent asks for this process's CPU time around each measurement, or for a clean exit
// (which writes a `--cpu-prof` profile; a signal would not).
process.on('message', (message) => {
  if (message === 'exit') process.exit(0);
  process.send?.(process.cpuUsage());
});
