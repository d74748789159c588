import * as v from 'valibot';
import { ENTERPRISE_ID_PATTERN } from '../run/ids.ts';
import { matchesWildcard } from './wildcard-match.ts';

/**
 * Who may use which enterprise. One rule per principal pattern:
 * - `principal`: `*` (any IAM caller), a 12-digit account id, an organization id (`o-…`), or an IAM/STS ARN matched
 *   against the caller's ARN, where `*` matches any run of characters (e.g.
 *   `arn:aws:sts::123456789012:assumed-role/OpsOnCall/*` for every session of that role);
 * - `enterprises`: the enterprise ids that principal may use, or `"*"` for all.
 * A caller may use an enterprise when any rule grants it; everything else is denied.
 */
export interface TenantAccessRule {
  principal: string;
  enterprises: '*' | readonly string[];
}

/** The policy in force; `null` means none is configured, and every IAM caller may use every enterprise. */
export type TenantAccessPolicy = readonly TenantAccessRule[] | null;

/** What the API Gateway IAM authorizer says about a caller (`requestContext.authorizer.iam`). */
export interface IamCaller {
  userArn?: unknown;
  accountId?: unknown;
  principalOrgId?: unknown;
}

const principalSchema = v.union([
  v.literal('*'),
  v.pipe(v.string(), v.regex(/^\d{12}$/)),
  v.pipe(v.string(), v.regex(/^o-[a-z0-9]{10,32}$/)),
  // NOTE: the account is always spelled out: `arn:aws:sts::*:…` would match every AWS account in the world.
  v.pipe(v.string(), v.regex(/^arn:aws[a-z-]*:(iam|sts)::\d{12}:[A-Za-z0-9+=,.@_/*-]{1,512}$/)),
]);

const ruleSchema = v.strictObject({
  principal: principalSchema,
  enterprises: v.union([
    v.literal('*'),
    v.pipe(v.array(v.pipe(v.string(), v.regex(ENTERPRISE_ID_PATTERN))), v.minLength(1), v.maxLength(1_000)),
  ]),
});

export const tenantAccessSchema = v.pipe(v.string(), v.parseJson(), v.pipe(v.array(ruleSchema), v.maxLength(200)));

/** Parses the `TENANT_ACCESS` setting (JSON); absent means no policy. Throws a valibot error on a bad value. */
export function parseTenantAccess(text: string | undefined): TenantAccessPolicy {
  if (text === undefined || text.trim() === '') return null;
  return Object.freeze(v.parse(tenantAccessSchema, text).map((rule) => Object.freeze({ ...rule })));
}

/**
 * Whether `caller` may use `enterpriseId` under `policy`. Exact comparisons only: the enterprise id as stored, the
 * caller's account and organization ids as the authorizer gave them, ARNs through `*` wildcards and nothing else.
 */
export function canAccessTenant(policy: TenantAccessPolicy, caller: IamCaller, enterpriseId: string): boolean {
  if (policy === null) return true;
  return policy.some(
    (rule) =>
      (rule.enterprises === '*' || rule.enterprises.includes(enterpriseId)) && principalMatches(rule.principal, caller),
  );
}

/**
 * An IAM or STS ARN as IAM spells one (at most 2,048 characters): names, paths and role session names use only
 * `A-Z a-z 0-9 + = , . @ _ - /`. NOTE: a caller's ARN outside this set (a line terminator, a space, a `*`) is no ARN
 * IAM issues, so it is refused before any pattern sees it (issue 32 item 14).
 */
const CALLER_ARN = /^arn:aws[a-z-]{0,20}:(iam|sts)::\d{12}:[A-Za-z0-9+=,.@_/-]{1,2000}$/;
const MAX_CALLER_ARN_CHARS = 2_048;

function principalMatches(principal: string, caller: IamCaller): boolean {
  if (principal === '*') return true;
  if (/^\d{12}$/.test(principal)) return caller.accountId === principal;
  if (principal.startsWith('o-')) return caller.principalOrgId === principal;
  const arn = caller.userArn;
  if (typeof arn !== 'string' || arn.length > MAX_CALLER_ARN_CHARS || !CALLER_ARN.test(arn)) return false;
  // NOTE: a linear-time match, never a RegExp built from the pattern: the caller picks its role session name.
  return matchesWildcard(principal, arn);
}
