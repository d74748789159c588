import { describe, expect, it } from 'vitest';
import { MAX_TOOL_CALL_ID_CHARS, TOOL_CALL_ID_PATTERN } from '../../../../packages/core/src/run/ids.ts';
import { decodeCursor, encodeCursor, SORT_KEY_PATTERN } from '../../../../packages/core/src/store/page-cursor.ts';

const cursorOf = (sk: string) => encodeCursor({ pk: 'RUN#r1', sk });

describe('SORT_KEY_PATTERN', () => {
  it('is the pattern the store had before its sort keys were built per item kind', () => {
    // NOTE: the cursor check must accept exactly the keys it accepted before issue #20 split the store.
    expect(SORT_KEY_PATTERN.source).toBe(
      /^(RUN|STEP#\d{4}|REASONING#\d{4}|MAP#\d{4}|TOOL#[A-Za-z0-9_.:-]{1,200}(#REUSED#\d{3})?|TOOLID#INVALID#\d{4})$/
        .source,
    );
  });

  it('accepts a tool key exactly when its id is one the harness accepts', () => {
    const ids = ['call_00_a', 'a.b:c-d', 'x'.repeat(MAX_TOOL_CALL_ID_CHARS), 'x'.repeat(201), 'a#b', 'a b', '', 'é'];
    expect(ids.map((id) => SORT_KEY_PATTERN.test(`TOOL#${id}`))).toEqual(
      ids.map((id) => TOOL_CALL_ID_PATTERN.test(id)),
    );
    expect(ids.map((id) => SORT_KEY_PATTERN.test(`TOOL#${id}#REUSED#001`))).toEqual(
      ids.map((id) => TOOL_CALL_ID_PATTERN.test(id)),
    );
  });
});

describe('decodeCursor', () => {
  it('reads back a key of every kind the run store and the audit writer write', () => {
    for (const sk of ['RUN', 'STEP#0001', 'REASONING#0002', 'MAP#0003', 'TOOL#call_1', 'TOOL#c#REUSED#002']) {
      expect(decodeCursor(cursorOf(sk), 'RUN#r1')).toEqual({ pk: 'RUN#r1', sk });
    }
    expect(decodeCursor(cursorOf('TOOLID#INVALID#0004'), 'RUN#r1')).toEqual({
      pk: 'RUN#r1',
      sk: 'TOOLID#INVALID#0004',
    });
  });

  it('refuses a key of another partition or a sort key the store never writes', () => {
    for (const [cursor, pk] of [
      [cursorOf('RUN'), 'RUN#r2'],
      [cursorOf('STEP#1'), 'RUN#r1'],
      [cursorOf('TOOL#a#b'), 'RUN#r1'],
      [cursorOf(`TOOL#${'x'.repeat(201)}`), 'RUN#r1'],
      ['not-a-cursor', 'RUN#r1'],
    ] as const) {
      expect(() => decodeCursor(cursor, pk)).toThrow(expect.objectContaining({ code: 'CORRUPT_ITEM' }));
    }
  });
});
