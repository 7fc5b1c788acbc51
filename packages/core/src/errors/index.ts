export * from './errors.js';
export { toErrorResponse, sendError, type ErrorResponse } from './error-response.js';
