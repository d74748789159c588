import type { EvidenceErrorCode } from '../evidence-adapter.ts';

const AWS_ERRORS: Record<string, EvidenceErrorCode> = {
  ThrottlingException: 'THROTTLED',
  TooManyRequestsException: 'THROTTLED',
  LimitExceededException: 'THROTTLED',
  ServiceQuotaExceededException: 'THROTTLED',
  AccessDeniedException: 'ACCESS_DENIED',
  UnauthorizedException: 'ACCESS_DENIED',
  UnrecognizedClientException: 'ACCESS_DENIED',
  ExpiredTokenException: 'ACCESS_DENIED',
  ResourceNotFoundException: 'NOT_CONFIGURED',
  ValidationException: 'INVALID_QUERY',
  InvalidParameterException: 'INVALID_QUERY',
  MalformedQueryException: 'INVALID_QUERY',
  InternalServerException: 'UNAVAILABLE',
  ServiceUnavailableException: 'UNAVAILABLE',
  ServiceUnavailable: 'UNAVAILABLE',
  DependencyFailedException: 'UNAVAILABLE',
  BadGatewayException: 'UNAVAILABLE',
  TimeoutError: 'TIMEOUT',
  AbortError: 'TIMEOUT',
};

/**
 * Maps an AWS SDK error to a stable code. The audit detail is the error's name and HTTP status only: AWS messages
 * can carry account ids and ARNs.
 */
export function awsError(
  error: unknown,
  service: string,
): { status: 'ERROR'; code: EvidenceErrorCode; detail: string } {
  const name = typeof (error as { name?: unknown })?.name === 'string' ? (error as { name: string }).name : 'Error';
  const safeName = /^[A-Za-z][A-Za-z0-9]{0,63}$/.test(name) ? name : 'Error';
  const status = (error as { $metadata?: { httpStatusCode?: unknown } })?.$metadata?.httpStatusCode;
  const code = AWS_ERRORS[safeName] ?? (typeof status === 'number' && status >= 500 ? 'UNAVAILABLE' : 'INTERNAL');
  return {
    status: 'ERROR',
    code,
    detail: `${service} ${safeName}${typeof status === 'number' ? ` (HTTP ${status})` : ''}`,
  };
}
