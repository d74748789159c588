import { DEVELOPMENT_MASKING_SECRET } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { resolveMaskingSecret } from '../../../../functions/lambda/masking-secret.ts';

const KEY = 'a-deployments-own-masking-key-of-48-characters-xx';

describe('resolveMaskingSecret', () => {
  it('gives the linked MaskingKey wherever it is set', () => {
    expect(resolveMaskingSecret({ MASKING_SECRET: KEY })).toBe(KEY);
    expect(resolveMaskingSecret({ MASKING_SECRET: KEY, DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' })).toBe(KEY);
  });

  it('gives the public development key only against a DynamoDB endpoint of its own (DynamoDB Local)', () => {
    expect(resolveMaskingSecret({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' })).toBe(DEVELOPMENT_MASKING_SECRET);
  });

  it('gives no secret to a function on a deployed table without MaskingKey, never the public key', () => {
    expect(resolveMaskingSecret({})).toBeNull();
    expect(resolveMaskingSecret({ MASKING_SECRET: undefined, DYNAMODB_ENDPOINT: undefined })).toBeNull();
  });
});
