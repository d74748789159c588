import { canAccessTenant, parseTenantAccess } from '@diagnosis/core/config';
import { describe, expect, it } from 'vitest';

const ops = {
  userArn: 'arn:aws:sts::123456789012:assumed-role/OpsOnCall/alice',
  accountId: '123456789012',
  principalOrgId: 'o-abcdefghij',
};
const policy = parseTenantAccess(
  JSON.stringify([
    { principal: 'arn:aws:sts::123456789012:assumed-role/OpsOnCall/*', enterprises: ['E1001'] },
    { principal: '210987654321', enterprises: ['E2002'] },
    { principal: 'o-zyxwvutsrq', enterprises: '*' },
  ]),
);

describe('parseTenantAccess', () => {
  it('means no policy when unset or blank', () => {
    expect(parseTenantAccess(undefined)).toBeNull();
    expect(parseTenantAccess('  ')).toBeNull();
  });

  it.each([
    ['not JSON', '[{'],
    ['an object instead of a list', '{"principal":"*","enterprises":"*"}'],
    ['a lower-case enterprise', '[{"principal":"*","enterprises":["e1001"]}]'],
    ['an unknown field', '[{"principal":"*","enterprises":"*","effect":"Allow"}]'],
    ['an empty enterprise list', '[{"principal":"*","enterprises":[]}]'],
    ['a principal that is neither ARN nor account nor org', '[{"principal":"alice","enterprises":"*"}]'],
    ['a regular expression in an ARN', '[{"principal":"arn:aws:iam::123456789012:role/(.*)","enterprises":"*"}]'],
    ['an ARN of any account', '[{"principal":"arn:aws:sts::*:assumed-role/Ops/*","enterprises":"*"}]'],
  ])('refuses %s', (_label, text) => {
    expect(() => parseTenantAccess(text)).toThrow();
  });
});

describe('canAccessTenant', () => {
  it('lets every caller use every enterprise when no policy is set', () => {
    expect(canAccessTenant(null, {}, 'E9999')).toBe(true);
  });

  it('grants a role session matched by an ARN wildcard only its own enterprises', () => {
    expect(canAccessTenant(policy, ops, 'E1001')).toBe(true);
    expect(canAccessTenant(policy, ops, 'E2002')).toBe(false);
    expect(canAccessTenant(policy, ops, 'e1001')).toBe(false);
  });

  it('matches accounts and organizations exactly', () => {
    expect(canAccessTenant(policy, { accountId: '210987654321' }, 'E2002')).toBe(true);
    expect(canAccessTenant(policy, { accountId: '2109876543210' }, 'E2002')).toBe(false);
    expect(canAccessTenant(policy, { principalOrgId: 'o-zyxwvutsrq' }, 'E7777')).toBe(true);
    expect(canAccessTenant(policy, { principalOrgId: 'o-zyxwvutsr' }, 'E7777')).toBe(false);
  });

  it('denies by default: another role, a look-alike ARN, or fields of the wrong type', () => {
    expect(
      canAccessTenant(policy, { ...ops, userArn: 'arn:aws:sts::123456789012:assumed-role/Dev/alice' }, 'E1001'),
    ).toBe(false);
    expect(
      canAccessTenant(policy, { userArn: 'arn:aws:sts::123456789012:assumed-role/OpsOnCallX/alice' }, 'E1001'),
    ).toBe(false);
    expect(canAccessTenant(policy, { userArn: ['arn:aws:sts::123456789012:assumed-role/OpsOnCall/a'] }, 'E1001')).toBe(
      false,
    );
    expect(canAccessTenant(policy, { accountId: 123456789012 }, 'E1001')).toBe(false);
    expect(canAccessTenant(parseTenantAccess('[]'), ops, 'E1001')).toBe(false);
  });

  it('lets "*" mean any caller, and only for the enterprises it names (a single-tenant stage)', () => {
    const single = parseTenantAccess(JSON.stringify([{ principal: '*', enterprises: ['E1001'] }]));
    for (const caller of [ops, { accountId: '999999999999' }, { userArn: 'arn:aws:iam::999999999999:user/x' }, {}]) {
      expect(canAccessTenant(single, caller, 'E1001')).toBe(true);
      expect(canAccessTenant(single, caller, 'E2002')).toBe(false);
      expect(canAccessTenant(single, caller, 'e1001')).toBe(false);
    }
    const open = parseTenantAccess(JSON.stringify([{ principal: '*', enterprises: '*' }]));
    expect(canAccessTenant(open, { accountId: '999999999999' }, 'E2002')).toBe(true);
  });

  it('refuses a caller ARN outside IAM’s character set before matching, whatever the pattern (issue 32 item 14)', () => {
    const sessions = parseTenantAccess(
      JSON.stringify([{ principal: 'arn:aws:sts::123456789012:assumed-role/OpsE1001/*', enterprises: ['E1001'] }]),
    );
    const arn = 'arn:aws:sts::123456789012:assumed-role/OpsE1001/';
    expect(canAccessTenant(sessions, { userArn: `${arn}alice` }, 'E1001')).toBe(true);
    for (const hostile of [
      'alice\nx',
      'alice\rx',
      'alice\u2028x',
      'alice\u2029x',
      'alice x',
      'alice\u0000',
      'ali*ce',
    ]) {
      expect(canAccessTenant(sessions, { userArn: `${arn}${hostile}` }, 'E1001')).toBe(false);
    }
    expect(canAccessTenant(sessions, { userArn: `${arn}${'a'.repeat(2_048)}` }, 'E1001')).toBe(false);
    const open = parseTenantAccess(JSON.stringify([{ principal: 'arn:aws:sts::123456789012:*', enterprises: '*' }]));
    expect(canAccessTenant(open, { userArn: `${arn}alice\nx` }, 'E1001')).toBe(false);
  });

  it('treats regular-expression characters in a pattern as text', () => {
    const dotted = parseTenantAccess(
      JSON.stringify([{ principal: 'arn:aws:iam::123456789012:user/a.b', enterprises: ['E1001'] }]),
    );
    expect(canAccessTenant(dotted, { userArn: 'arn:aws:iam::123456789012:user/a.b' }, 'E1001')).toBe(true);
    expect(canAccessTenant(dotted, { userArn: 'arn:aws:iam::123456789012:user/aXb' }, 'E1001')).toBe(false);
  });
});
