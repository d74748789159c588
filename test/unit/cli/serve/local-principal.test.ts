import { describe, expect, it } from 'vitest';
import { DEFAULT_LOCAL_PRINCIPAL, parseLocalPrincipal } from '../../../../packages/cli/src/serve/local-principal.ts';

describe('parseLocalPrincipal', () => {
  it('gives an IAM user the authorizer context API Gateway gives it, its account from the ARN', () => {
    expect(parseLocalPrincipal(DEFAULT_LOCAL_PRINCIPAL)).toEqual({
      accessKey: 'ASIALOCALPRINCIPAL',
      accountId: '000000000000',
      callerId: 'AIDALOCALPRINCIPAL',
      cognitoIdentity: null,
      principalOrgId: null,
      userArn: DEFAULT_LOCAL_PRINCIPAL,
      userId: 'AIDALOCALPRINCIPAL',
    });
  });

  it('gives an assumed role its session name in the user id', () => {
    expect(parseLocalPrincipal('arn:aws:sts::123456789012:assumed-role/OpsE1001/alice')).toMatchObject({
      accountId: '123456789012',
      userId: 'AROALOCALPRINCIPAL:alice',
      userArn: 'arn:aws:sts::123456789012:assumed-role/OpsE1001/alice',
    });
  });

  it.each([
    ['a wildcard account', 'arn:aws:iam::*:user/x'],
    ['a line terminator', 'arn:aws:sts::123456789012:assumed-role/OpsE1001/alice\nx'],
    ['U+2028', 'arn:aws:sts::123456789012:assumed-role/OpsE1001/alice\u2028x'],
    ['an assumed role under iam', 'arn:aws:iam::123456789012:assumed-role/r/s'],
    ['a user under sts', 'arn:aws:sts::123456789012:user/x'],
    ['another service', 'arn:aws:s3:::bucket'],
    ['a short account', 'arn:aws:iam::1234:user/x'],
    ['nothing after the kind', 'arn:aws:iam::123456789012:user/'],
    ['over 512 characters', `arn:aws:iam::123456789012:user/${'a'.repeat(500)}`],
  ])('refuses %s', (_case, text) => {
    expect(parseLocalPrincipal(text)).toBeNull();
  });
});
