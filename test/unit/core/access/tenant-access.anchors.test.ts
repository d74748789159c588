import { canAccessTenant, parseTenantAccess } from '@diagnosis/core/config';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';

// The principal validator's anchors: a principal that merely contains an account id, an organization id or an ARN
// is not one. Each refusal is valibot's ValiError for the `principal` key (the settings parse reports it by key).

const rule = (principal: string) => JSON.stringify([{ principal, enterprises: ['E1001'] }]);

function refusal(text: string): { name: string; path: string | undefined } {
  try {
    parseTenantAccess(text);
  } catch (error) {
    if (!(error instanceof v.ValiError)) throw error;
    const issue = error.issues[0];
    return { name: error.name, path: issue === undefined ? undefined : (v.getDotPath(issue) ?? undefined) };
  }
  throw new Error('accepted');
}

describe('parseTenantAccess', () => {
  it.each([
    ['a star before an account id', '*123456789012'],
    ['text before an account id', 'x123456789012'],
    ['thirteen digits', '1234567890123'],
    ['text after an account id', '123456789012x'],
    ['text before an organization id', 'xo-abcdefghij'],
    ['a star after an organization id', 'o-abcdefghij*'],
    ['text before an ARN', 'xarn:aws:iam::123456789012:role/Ops'],
    ['a space after an ARN', 'arn:aws:iam::123456789012:role/Ops '],
  ])('refuses %s as the principal', (_label, principal) => {
    expect(refusal(rule(principal))).toEqual({ name: 'ValiError', path: '0.principal' });
  });

  it.each([
    ['an account id', '123456789012'],
    ['an organization id', 'o-abcdefghij'],
    ['an ARN of the aws partition', 'arn:aws:iam::123456789012:role/Ops'],
    ['an ARN of the China partition', 'arn:aws-cn:sts::123456789012:assumed-role/Ops/*'],
    ['an ARN of GovCloud', 'arn:aws-us-gov:iam::123456789012:user/alice'],
  ])('accepts %s', (_label, principal) => {
    expect(parseTenantAccess(rule(principal))).toEqual([{ principal, enterprises: ['E1001'] }]);
  });
});

describe('canAccessTenant', () => {
  it('matches an ARN principal that ends in twelve digits as an ARN, not as an account id', () => {
    const principal = 'arn:aws:iam::123456789012:user/123456789012';
    const policy = parseTenantAccess(rule(principal));
    expect(canAccessTenant(policy, { userArn: principal }, 'E1001')).toBe(true);
    expect(canAccessTenant(policy, { accountId: principal }, 'E1001')).toBe(false);
  });

  // The caller-ARN check (CALLER_ARN): its partition class and its start anchor, pinned with callers a policy rule
  // would otherwise grant.
  it.each([
    [
      'the China partition',
      'arn:aws-cn:sts::123456789012:assumed-role/Ops/*',
      'arn:aws-cn:sts::123456789012:assumed-role/Ops/alice',
    ],
    ['GovCloud', 'arn:aws-us-gov:iam::123456789012:user/*', 'arn:aws-us-gov:iam::123456789012:user/alice'],
  ])('grants a caller of %s matched by a rule of its partition', (_label, principal, userArn) => {
    expect(canAccessTenant(parseTenantAccess(rule(principal)), { userArn }, 'E1001')).toBe(true);
    expect(canAccessTenant(parseTenantAccess(rule(principal)), { userArn }, 'E2002')).toBe(false);
  });

  it.each([
    ['a space', 'arn:aws:sts::123456789012:assumed-role/Ops/x arn:aws:sts::123456789012:assumed-role/Ops/y'],
    ['a colon', 'arn:aws:sts::123456789012:assumed-role/Ops/x:arn:aws:sts::123456789012:assumed-role/Ops/y'],
  ])('refuses a caller ARN that only ends in a valid ARN, after %s', (_label, userArn) => {
    const policy = parseTenantAccess(rule('arn:aws:sts::123456789012:assumed-role/Ops/*'));
    expect(canAccessTenant(policy, { userArn }, 'E1001')).toBe(false);
    expect(canAccessTenant(policy, { userArn: 'arn:aws:sts::123456789012:assumed-role/Ops/y' }, 'E1001')).toBe(true);
  });

  it('refuses a caller whose partition is longer than 20 characters after "aws", though a rule may name it', () => {
    const partition = `aws-${'a'.repeat(19)}`;
    const longer = `aws-${'a'.repeat(20)}`;
    for (const [name, expected] of [
      [partition, true],
      [longer, false],
    ] as const) {
      const principal = `arn:${name}:iam::123456789012:user/*`;
      const policy = parseTenantAccess(rule(principal));
      expect(canAccessTenant(policy, { userArn: `arn:${name}:iam::123456789012:user/alice` }, 'E1001')).toBe(expected);
    }
  });
});
