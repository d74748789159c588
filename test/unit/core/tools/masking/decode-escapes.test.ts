import { describe, expect, it } from 'vitest';
import { decodeEscapes } from '../../../../../packages/core/src/tools/masking/decode-escapes.ts';

describe('decodeEscapes', () => {
  it('decodes the control escapes \\n, \\r and \\t', () => {
    expect(decodeEscapes('a\\nb\\rc\\td')).toBe('a\nb\rc\td');
  });

  it('leaves a backslash before any other letter as it is', () => {
    expect(decodeEscapes('C:\\qx \\b')).toBe('C:\\qx \\b');
  });

  it('undoes four layers of escaping and no fifth', () => {
    // `@` escaped as \u0040, then its backslash escaped again, layer by layer.
    const layered = (layers: number) => `a${'\\'.repeat(2 ** (layers - 1))}u0040b.cn`;
    expect(decodeEscapes(layered(4))).toBe('a@b.cn');
    expect(decodeEscapes(layered(5))).toBe('a\\u0040b.cn');
  });
});
