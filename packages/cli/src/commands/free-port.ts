import { createServer } from 'node:net';

/** A port nothing listens on now, for an app module started on a fixed address. */
export const freePort = () =>
  new Promise<number>((done, fail) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
    s.once('error', fail);
  });
