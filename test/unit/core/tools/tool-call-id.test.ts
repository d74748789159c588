import { describe, expect, it } from 'vitest';
import { MAX_TOOL_CALL_ID_CHARS } from '../../../../packages/core/src/run/ids.ts';
import { parseToolCallId } from '../../../../packages/core/src/tools/tool-call-id.ts';

describe('parseToolCallId', () => {
  it('accepts an id of letters, digits and _ . : - as it is', () => {
    expect(parseToolCallId('call_01:a.b-c')).toEqual({ ok: true, id: 'call_01:a.b-c' });
    expect(parseToolCallId('x'.repeat(MAX_TOOL_CALL_ID_CHARS))).toMatchObject({ ok: true });
  });

  it('refuses an id that could take a storage key’s place, keeping it as it came when it is short', () => {
    expect(parseToolCallId('c1#REUSED#001')).toEqual({ ok: false, id: 'c1#REUSED#001' });
    expect(parseToolCallId('')).toEqual({ ok: false, id: '' });
    expect(parseToolCallId('line\nbreak')).toEqual({ ok: false, id: 'line\nbreak' });
  });

  it('refuses an id that is too long and keeps a copy cut to the limit, never inside a surrogate pair', () => {
    expect(parseToolCallId('x'.repeat(150_000))).toEqual({ ok: false, id: 'x'.repeat(MAX_TOOL_CALL_ID_CHARS) });
    const cut = parseToolCallId(`${'x'.repeat(MAX_TOOL_CALL_ID_CHARS - 1)}🔥🔥`);
    expect(cut).toEqual({ ok: false, id: 'x'.repeat(MAX_TOOL_CALL_ID_CHARS - 1) });
  });

  it('refuses a value that is not a string, as its text', () => {
    expect(parseToolCallId(42)).toEqual({ ok: false, id: '42' });
  });
});
