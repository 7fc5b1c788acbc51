// Waiting for a started app: poll `GET /` until it answers the JSON descriptor.
import { createServer } from 'node:net';

/** A port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface WaitOptions {
  timeoutMs: number;
  /** Resolves when the app's process ends: waiting stops at once. */
  exited?: Promise<unknown>;
  /** The app's output so far, for the error message. */
  output?: () => string;
}

/** Polls until `url` answers 200 with a JSON object that has a string `id`; returns it. */
export async function waitForDescriptor(url: string, options: WaitOptions): Promise<{ id: string }> {
  const deadline = Date.now() + options.timeoutMs;
  let gone = false;
  void options.exited?.then(() => {
    gone = true;
  });
  let last = 'no answer';
  while (Date.now() < deadline && !gone) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      const body = (await response.json().catch(() => undefined)) as { id?: unknown } | undefined;
      if (response.status === 200 && typeof body?.id === 'string') return { id: body.id };
      last = `answered ${response.status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const why = gone
    ? 'the app exited before answering'
    : `no descriptor within ${options.timeoutMs / 1000} s (${last})`;
  throw new Error(`GET ${url}: ${why}\n${options.output?.() ?? ''}`.trimEnd());
}
