/**
 * `@weft/core/hardening`: the limits and checks core puts on a server facing the network, for a
 * server of one's own (the local workspace's): connection cap, timeouts and JSON answers to
 * malformed requests (`hardenServer`), the raw-body nesting check (`checkJsonDepth`) and the JSON
 * body reader that applies it (`jsonBody`, body-parser's answers at less cost per request). Without
 * the app server, so a process that serves no app loads neither Express's router nor the OAuth
 * clients through it.
 */
export { hardenServer, type ServerLimits } from '../router/harden-server.js';
export { checkJsonDepth, DEFAULT_MAX_JSON_DEPTH, TooDeepError } from '../router/json-depth.js';
export { type JsonBodyOptions, jsonBody } from '../router/json-body.js';
