import type { NamespaceCodec } from '@weft/namespace';
import type { CommandChannel } from '../commands/command-channel.js';
import type { Transport } from '../http/transport.js';

/** What every resource module works with. */
export interface ClientContext {
  transport: Transport;
  channel: CommandChannel;
  /**
   * With a namespace other than svc: `out` renames what the client sends into the workspace's
   * namespace, `in` renames its answers back into svc, the names the client's callers use.
   */
  names?: { in: NamespaceCodec; out: NamespaceCodec } | undefined;
}
