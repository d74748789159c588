/**
 * The services whose write calls are noise, not changes (credentials, keys, log streams, sign-ins): the EventBridge
 * rule leaves them out, and the function again (the rule is an optimisation, never the rule). A module of its own that
 * imports nothing: the infrastructure code and the CLI read it through `@diagnosis/functions/infrastructure`, whose
 * modules must not load the core's index (and with it the model stack) — test/e2e/local/cli-startup.test.ts.
 */
export const CLOUDTRAIL_NOISE_SOURCES = Object.freeze([
  'sts.amazonaws.com',
  'kms.amazonaws.com',
  'logs.amazonaws.com',
  'signin.amazonaws.com',
  'sso.amazonaws.com',
  'cloudtrail.amazonaws.com',
  'notifications.amazonaws.com',
] as const);
