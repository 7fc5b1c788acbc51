// The outbound policy: every fetch the workspace makes on a user's behalf goes through
// outboundFetch with the workspace's OutboundPolicy. See docs/security.md, "The outbound policy".
export { refusedClass } from './address-class.js';
export {
  OutboundError,
  OutboundRefusedError,
  OutboundTooLargeError,
  OutboundUnreachableError,
  outboundCause,
} from './outbound-errors.js';
export { DEFAULT_MAX_BYTES, type OutboundRequest, outboundFetch, readText } from './outbound-fetch.js';
export { type OutboundOptions, OutboundPolicy } from './outbound-policy.js';
export { isLoopbackHost } from './loopback-host.js';
