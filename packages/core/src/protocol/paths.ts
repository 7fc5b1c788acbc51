/** Every path of the app protocol, in one place for the router and the conformance kit. */
export const PROTOCOL_PATHS = {
  descriptor: '/',
  logo: '/logo',
  validate: '/validate',
  config: '/api/v1/synchronizer/config',
  schema: '/api/v1/synchronizer/schema',
  data: '/api/v1/synchronizer/data',
  datalist: '/api/v1/synchronizer/datalist',
  filterValidate: '/api/v1/synchronizer/filter/validate',
  webhooks: '/api/v1/synchronizer/webhooks',
  webhooksVerify: '/api/v1/synchronizer/webhooks/verify',
  webhooksTransform: '/api/v1/synchronizer/webhooks/transform',
  webhooksPreProcess: '/api/v1/synchronizer/webhooks/pre-process',
  resource: '/api/v1/synchronizer/resource',
  execute: '/api/v1/automations/action/execute',
  oauth1Authorize: '/oauth1/v1/authorize',
  oauth1AccessToken: '/oauth1/v1/access_token',
  oauth2Authorize: '/oauth2/v1/authorize',
  oauth2AccessToken: '/oauth2/v1/access_token',
} as const;
export type ProtocolPath = (typeof PROTOCOL_PATHS)[keyof typeof PROTOCOL_PATHS];
