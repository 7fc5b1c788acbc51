/**
 * `@weft/core/hardening`: the limits and checks core puts on a server facing the network, for a
 * server of one's own (the local workspace's): connection cap, timeouts and JSON answers to
 * malformed requests (`hardenServer`), and the raw-body nesting check (`checkJsonDepth`). Without
 * the app server, so a process that serves no app loads neither Express's router nor the OAuth
 * clients through it.
 */
export { hardenServer, type ServerLimits } from '../router/harden-server.js';
export { checkJsonDepth, DEFAULT_MAX_JSON_DEPTH, TooDeepError } from '../router/json-depth.js';
