/**
 * Refusal messages name the fields at fault and never echo a value (docs/api.md, "Errors"). An unexpected field's
 * name is a value too: a caller chose it (a 7,500-character key of `<!channel>`, a bidi
 * override and ESC came back as the 400's message, which the CLI and clients print).
 */
import { describe, expect, it } from 'vitest';
import { issuePaths, parseFeedbackInput, parseStartRequest } from '../../../packages/core/src/index.ts';

const hostileKey = `\u202e\u001b[2J<!channel>${'x'.repeat(7_500)}`;

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('not refused');
}

describe('issuePaths', () => {
  it('shows plain field names and indexes, and any other name as ?', () => {
    expect(
      issuePaths([{ path: [{ key: 'window' }, { key: 'start' }] }, { path: [{ key: 'items' }, { key: 3 }] }]),
    ).toEqual(['window.start', 'items.3']);
    expect(issuePaths([{ path: [{ key: hostileKey }] }, { path: [{ key: 'a'.repeat(65) }] }, {}])).toEqual(['?', '$']);
  });

  it.each([
    ['INVALID_FEEDBACK', () => parseFeedbackInput({ verdict: 'CORRECT', [hostileKey]: 1 })],
    [
      'INVALID_REQUEST',
      () => parseStartRequest({ sessionId: 's', enterpriseId: 'E1001', query: 'q', [hostileKey]: 1 }, () => 'run-1'),
    ],
  ])('%s names an unexpected field without echoing its name', (_code, refuse) => {
    const message = messageOf(refuse);
    expect(message.length).toBeLessThan(300);
    expect(message).not.toContain('<!channel>');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: ESC and the bidi override are what must not come back
    expect(message).not.toMatch(/[\u001b\u202e]/);
    expect(message).toContain('?');
  });
});
