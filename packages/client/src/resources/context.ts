import type { CommandChannel } from '../commands/command-channel.js';
import type { Transport } from '../http/transport.js';

/** What every resource module works with. */
export interface ClientContext {
  transport: Transport;
  channel: CommandChannel;
}
