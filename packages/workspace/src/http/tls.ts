import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { SERVER_OPTIONS } from './server-options.js';

// HTTPS for a workspace others reach (and for clients that only ever call https://, as the
// service's own clients do): a certificate and its private key, PEM. Without them the workspace
// serves plain HTTP, as it always did.

export interface TlsOptions {
  /** the certificate (chain), PEM */
  cert: string | Buffer;
  /** its private key, PEM */
  key: string | Buffer;
}

/** The HTTP server of the workspace: HTTPS with `tls`, else HTTP. */
export function createWorkspaceServer(app: RequestListener, tls?: TlsOptions): Server {
  if (!tls) return createHttpServer(SERVER_OPTIONS, app);
  return createHttpsServer({ ...SERVER_OPTIONS, cert: tls.cert, key: tls.key }, app);
}

/**
 * WEFT_TLS_CERT and WEFT_TLS_KEY: the files of the certificate and its key, both or neither. An
 * error names the setting and the file, never what the file holds.
 */
export function tlsFromEnv(env: NodeJS.ProcessEnv): TlsOptions | undefined {
  const certFile = env.WEFT_TLS_CERT || undefined;
  const keyFile = env.WEFT_TLS_KEY || undefined;
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile)
    throw new Error('WEFT_TLS_CERT and WEFT_TLS_KEY go together: set both or neither');
  const read = (name: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new Error(`${name}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  };
  return { cert: read('WEFT_TLS_CERT', certFile), key: read('WEFT_TLS_KEY', keyFile) };
}
