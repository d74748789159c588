import { hkdfSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  DEVELOPMENT_MASKING_SECRET,
  deriveRunMaskingKeys,
} from '../../../../../packages/core/src/tools/masking/pseudonym-keys.ts';

const SALT = Buffer.from('diagnosis-agent/masking/v1', 'utf8');
const hkdf = (secret: string, info: string) =>
  Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), SALT, info, 32));

describe('deriveRunMaskingKeys', () => {
  it('gives the bytes of HKDF-SHA256 (node:crypto hkdfSync) for each purpose, run and secret', () => {
    const other = 'another-deployment-secret-of-at-least-32-characters-密钥';
    for (const secret of [DEVELOPMENT_MASKING_SECRET, other, DEVELOPMENT_MASKING_SECRET]) {
      for (const runId of ['run-1', '01JDXW7Y5B3M9C2K8Q4R6T0V1Z', 'run-2']) {
        const keys = deriveRunMaskingKeys(secret, runId);
        expect(keys.pseudonymKey.equals(hkdf(secret, `pseudonym:${runId}`))).toBe(true);
        expect(keys.mapKey.equals(hkdf(secret, `pseudonym-map:${runId}`))).toBe(true);
      }
    }
  });

  it('refuses a secret shorter than 32 characters', () => {
    expect(() => deriveRunMaskingKeys('short', 'run-1')).toThrow(TypeError);
  });
});
