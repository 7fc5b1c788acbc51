/**
 * `@weft/core/redact`: keeping secrets out of text, and clipping echoed values, without the
 * server. The sync engine and the kit print what apps answer; importing these from here keeps
 * Express and the OAuth clients out of processes that never serve an app.
 */
export { clip, MAX_ECHO } from './clip.js';
export { collectSecrets, REDACTED, redact } from './redact.js';
