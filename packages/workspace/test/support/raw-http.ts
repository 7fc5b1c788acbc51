import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** A socket to the server at `url`, connected. */
export function openSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * Writes `head` and then `body` (which may be only the start of what the head declares) on a new
 * connection, and reads until the server closes it. An answer the server keeps the connection open
 * after never resolves: what these tests check is that the server answers and hangs up without
 * waiting for (or reading) the rest of the body.
 */
export async function rawExchange(url: string, head: string, body: string | Buffer = ''): Promise<RawAnswer> {
  const socket = await openSocket(url);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  // The server may hang up while the body is still being written.
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(head);
  socket.write(body);
  await closed;
  return parseAnswer(Buffer.concat(chunks).toString('utf8'));
}

export function parseAnswer(text: string): RawAnswer {
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) throw new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const raw = text.slice(split + 4);
  let body: unknown = raw;
  try {
    body = JSON.parse(raw);
  } catch {}
  return { status: Number(statusLine!.split(' ')[1]), headers, body };
}

/** The head of a request (HTTP/1.1, keep-alive unless the server says otherwise). */
export function requestHead(method: string, path: string, headers: Record<string, string | number>): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}
