import { diagnosisDraftJsonSchema } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { renderSchemaNotation } from '../../../../packages/core/src/draft/schema-notation.ts';
import { judgeVerdictsJsonSchema } from '../../../../packages/core/src/release/judge/judge-verdicts.ts';

/** Every constraint a JSON Schema states, as the notation must show it. */
function constraints(schema: unknown, found: (string | RegExp)[] = []): (string | RegExp)[] {
  if (Array.isArray(schema)) {
    for (const item of schema) constraints(item, found);
    return found;
  }
  if (typeof schema !== 'object' || schema === null) return found;
  const node = schema as Record<string, unknown>;
  if (Array.isArray(node.enum)) for (const value of node.enum) found.push(JSON.stringify(value));
  if (typeof node.maxLength === 'number') found.push(new RegExp(`[–≤]${node.maxLength}[,)]`));
  if (typeof node.maxItems === 'number') found.push(`${node.maxItems} × `);
  if (typeof node.maximum === 'number') found.push(new RegExp(`[–≤]${node.maximum}\\)`));
  if (typeof node.pattern === 'string') found.push(`/${node.pattern}/`);
  if (typeof node.minLength === 'number' && node.minLength > 0) found.push(new RegExp(`\\(${node.minLength}–`));
  for (const name of Object.keys((node.properties ?? {}) as object)) found.push(`"${name}"`);
  for (const value of Object.values(node)) constraints(value, found);
  return found;
}

describe('renderSchemaNotation', () => {
  it('writes the Draft schema with every field, enum value, bound and nullability', () => {
    const notation = renderSchemaNotation(diagnosisDraftJsonSchema());
    for (const constraint of constraints(diagnosisDraftJsonSchema())) expect(notation).toMatch(constraint);
    expect(notation).toContain('"conclusion": string(1–1000) | null');
    expect(notation).toContain('"tool_call_ids": [1–6 × string(1–200)]');
    expect(notation).toContain('"scope": string(≤300) | null');
    expect(notation.length).toBeLessThan(JSON.stringify(diagnosisDraftJsonSchema()).length / 2);
  });

  it('writes the judge’s verdict schema with its pattern and integer bounds', () => {
    const notation = renderSchemaNotation(judgeVerdictsJsonSchema());
    for (const constraint of constraints(judgeVerdictsJsonSchema())) expect(notation).toMatch(constraint);
    expect(notation).toContain(
      '"analysis": [≤10 × ["SUPPORTED"|"UNSUPPORTED"|"UNCLEAR", string(1–120, /^[^\\r\\n]+$/)]]',
    );
  });

  it('marks optional fields', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'number', minimum: 1 } },
      required: ['a'],
      additionalProperties: false,
    };
    expect(renderSchemaNotation(schema)).toBe('{"a": string, "b"?: number(≥1)}');
  });

  it.each([
    ['an unknown keyword', { type: 'string', format: 'date-time' }],
    ['an open object', { type: 'object', properties: {} }],
    ['an unknown type', { type: 'boolean' }],
    ['an open tuple', { type: 'array', items: [{ type: 'string' }], minItems: 1 }],
    ['a tuple whose entries may be left out', { type: 'array', items: [{ type: 'string' }], additionalItems: false }],
  ])('refuses a schema with %s rather than drop a constraint', (_label, schema) => {
    expect(() => renderSchemaNotation(schema)).toThrow(TypeError);
  });
});
