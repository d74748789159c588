/**
 * Who calls `diagnosis serve`'s IAM routes. IAM does not exist on this machine, so no request is signed: the server
 * stands in for API Gateway's IAM authorizer with one local principal, an IAM ARN given on the command line
 * (`--principal`, default {@link DEFAULT_LOCAL_PRINCIPAL}), and puts the authorizer context API Gateway would put
 * (`requestContext.authorizer.iam`) into every event of an IAM route. TENANT_ACCESS then matches that ARN exactly as
 * it matches a deployed caller's. On a loopback bind only, one request may name another principal in the
 * `X-Diagnosis-Local-Principal` header (to try a tenant policy from curl); on any other bind the header is refused, so
 * nobody on the network picks who they are.
 */

/** The principal a request acts as when neither `--principal` nor the header names one. */
export const DEFAULT_LOCAL_PRINCIPAL = 'arn:aws:iam::000000000000:user/local-operator';

/** The header a loopback request may name its principal in. */
export const PRINCIPAL_HEADER = 'x-diagnosis-local-principal';

/**
 * An IAM user or role ARN, or an STS assumed-role ARN: IAM's own character set for names and paths, no line
 * terminators, at most 512 characters.
 */
const PRINCIPAL_ARN =
  /^arn:aws(?:-cn|-us-gov)?:(?:iam|sts)::(\d{12}):((?:user|role|assumed-role)\/[\w+=,.@/-]{1,400})$/;

/** The IAM context API Gateway's IAM authorizer gives a route (HTTP API payload 2.0, `requestContext.authorizer.iam`). */
export interface IamAuthorizerContext {
  accessKey: string;
  accountId: string;
  callerId: string;
  cognitoIdentity: null;
  principalOrgId: null;
  userArn: string;
  userId: string;
}

/** The authorizer context of a principal ARN, or null when the text is not one. */
export function parseLocalPrincipal(text: string): IamAuthorizerContext | null {
  if (text.length > 512) return null;
  const match = PRINCIPAL_ARN.exec(text);
  if (match === null) return null;
  const [, accountId = '', resource = ''] = match;
  const kind = resource.slice(0, resource.indexOf('/'));
  if ((kind === 'assumed-role') !== text.includes(':sts::')) return null;
  // NOTE: the unique ids IAM would give are made up (AIDA… a user, AROA… a role, with the session name after a
  // colon for an assumed role): nothing this service decides reads them; feedback is recorded by `userArn`.
  const session = kind === 'assumed-role' ? resource.slice(resource.lastIndexOf('/') + 1) : '';
  const uniqueId = kind === 'user' ? 'AIDALOCALPRINCIPAL' : 'AROALOCALPRINCIPAL';
  const userId = session === '' ? uniqueId : `${uniqueId}:${session}`;
  return {
    accessKey: 'ASIALOCALPRINCIPAL',
    accountId,
    callerId: userId,
    cognitoIdentity: null,
    principalOrgId: null,
    userArn: text,
    userId,
  };
}
