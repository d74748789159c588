import { describe, expect, it } from 'vitest';
import { CALL_RECORD_NOTE } from '../../../../packages/core/src/harness/compact-history.ts';
import { EVIDENCE_ERROR_CODES } from '../../../../packages/core/src/tools/evidence-adapter.ts';
import {
  emptyObservation,
  errorObservation,
  type RejectionCode,
  rejectedObservation,
  STOP_REQUIRED_MESSAGE,
  stopRequiredObservation,
} from '../../../../packages/core/src/tools/observation.ts';

/** Every rejection code (a record, so a new code fails the typecheck until it is listed here). */
const REJECTION_CODES: Record<RejectionCode, true> = {
  MISSING_PREVIOUS_OBSERVATION: true,
  PREVIOUS_OBSERVATION_MISMATCH: true,
  INVALID_INPUT: true,
  DUPLICATE_CALL: true,
  DUPLICATE_TOOL_CALL_ID: true,
  INVALID_TOOL_CALL_ID: true,
  UNKNOWN_TOOL: true,
  UNKNOWN_PSEUDONYM: true,
  OUTSIDE_INCIDENT_WINDOW: true,
};

/** A pseudonym's shape as the text shows it by example (`<email:k3f2a>`): a form, not a figure. */
const PSEUDONYM_EXAMPLE = /<[a-z]+:[a-z0-9]+>/g;
/**
 * A figure in any script the model reads: ASCII, full-width, or a Chinese numeral with a unit after it (not 一, which
 * the texts use as "a"/"one of": 上一条, 一次).
 */
const FIGURE = /[0-9０-９]|[二两三四五六七八九十百千万]+\s*(个|字|次|条|秒|行|字节|分钟|小时)/;

/** The fixed text of a control observation, with the detail it was given (ids, paths, times) taken out. */
function fixedText(message: string | undefined, detail: readonly string[] = []): string {
  let text = message ?? '';
  for (const value of detail) text = text.split(value).join('');
  return text.replace(PSEUDONYM_EXAMPLE, '');
}

describe('control observations', () => {
  const detail = {
    expectedToolCallId: 'call_prev',
    paths: ['input.service'],
    window: { from: '2026-11-30T13:00:00+08:00', to: '2026-11-30T15:00:00+08:00' },
  };
  const values = ['call_prev', 'input.service', detail.window.from, detail.window.to];

  it.each(Object.keys(REJECTION_CODES) as RejectionCode[])(
    'states no threshold when a call is refused with %s',
    (code) => {
      const observation = rejectedObservation('call_x', code, detail);
      expect(observation.message?.length).toBeGreaterThan(0);
      expect(fixedText(observation.message, values)).not.toMatch(FIGURE);
    },
  );

  it('does not tell the model the longest tool call id it accepts', () => {
    const message = rejectedObservation('call_x', 'INVALID_TOOL_CALL_ID').message ?? '';
    expect(message).not.toContain('200');
    expect(message).toContain('tool_call_id');
  });

  it.each([...EVIDENCE_ERROR_CODES])('states no threshold when a source answers %s', (code) => {
    expect(fixedText(errorObservation('call_x', code).message)).not.toMatch(FIGURE);
  });

  it('states no threshold in the empty result, the stop and the compaction note', () => {
    for (const message of [
      emptyObservation('call_x').message,
      stopRequiredObservation('call_x').message,
      STOP_REQUIRED_MESSAGE,
      CALL_RECORD_NOTE,
    ]) {
      expect(fixedText(message)).not.toMatch(FIGURE);
    }
  });
});
