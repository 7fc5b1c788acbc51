import { parentPort } from 'node:worker_threads';
import { sendExchange, type TransportOptions } from './exchange.js';
import type { ExchangeMessage, ExchangeReply } from './exchange-thread.js';

// The thread of an ExchangeThread (exchange-thread.ts): each request it is sent goes out through
// sendExchange here, so the answer's bytes are read and its JSON parsed on this thread, and the
// exchange goes back whole. A request's stop comes as a message of its own.

const port = parentPort;
if (!port) throw new Error('exchange-worker.ts runs as a worker thread (see exchange-thread.ts)');
const stops = new Map<number, AbortController>();

port.on('message', (message: ExchangeMessage) => {
  if (message.kind === 'stop') {
    stops.get(message.id)?.abort();
    return;
  }
  const stop = new AbortController();
  stops.set(message.id, stop);
  const options: TransportOptions = { ...message.options, signal: stop.signal };
  sendExchange(message.baseUrl, message.request, message.rawBody, options)
    .then((exchange) => port.postMessage({ kind: 'done', id: message.id, exchange } satisfies ExchangeReply))
    .finally(() => stops.delete(message.id));
});
port.postMessage({ kind: 'ready' } satisfies ExchangeReply);
