import { createMemoryStores } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import {
  type IncidentMasking,
  IncidentMaskingError,
  maskAttachedTitle,
  maskNewRunTexts,
} from '../../../../packages/core/src/service/mask-incident-texts.ts';
import { createMaskingSession } from '../../../../packages/core/src/tools/masking/masking-session.ts';
import { openPseudonymBatches } from '../../../../packages/core/src/tools/masking/pseudonym-map.ts';

const SECRET = 'incident-texts-test-masking-secret-of-32-chars';
const RUN = { runId: 'run-incident-1', sessionId: 'incident-s-1', createdAt: '2026-11-30T06:07:12.000Z' };

function setup(mode: 'identifiers' | 'secrets-only' = 'identifiers') {
  const store = createMemoryStores();
  const masking: IncidentMasking = { config: { mode, secret: SECRET }, pseudonyms: store };
  return { store, masking };
}

describe('maskNewRunTexts', () => {
  it('masks the question and title with the run’s key and seals their values as the map’s first batch', async () => {
    const { store, masking } = setup();
    const masked = await maskNewRunTexts(
      { query: '告警：客户 13912345678 支付失败，token=abc123', title: 'PD: li.na@example.cn 投诉' },
      RUN,
      masking,
    );
    const expected = createMaskingSession(masking.config, RUN.runId);
    expect(masked).toEqual({
      query: expected.maskText('告警：客户 13912345678 支付失败，token=abc123'),
      title: expected.maskText('PD: li.na@example.cn 投诉'),
    });
    expect(masked.query).toMatch(/^告警：客户 <phone:[a-z2-7]{5}> 支付失败，token=\[REDACTED:token\]$/);
    const { records } = await store.listPseudonyms(RUN.runId);
    expect(records.map((record) => [record.sequence, record.count])).toEqual([[1, 2]]);
    expect(openPseudonymBatches(SECRET, RUN.runId, records).map((entry) => entry.value)).toEqual([
      '13912345678',
      'li.na@example.cn',
    ]);
  });

  it('writes no map when the texts hold no identifier, or the deployment masks secrets only', async () => {
    const plain = setup();
    expect(await maskNewRunTexts({ query: '支付失败', title: 'payment 5xx' }, RUN, plain.masking)).toEqual({
      query: '支付失败',
      title: 'payment 5xx',
    });
    expect((await plain.store.listPseudonyms(RUN.runId)).records).toEqual([]);
    const secretsOnly = setup('secrets-only');
    const masked = await maskNewRunTexts({ query: '客户 13912345678', title: 't' }, RUN, secretsOnly.masking);
    expect(masked.query).toBe('客户 13912345678');
    expect((await secretsOnly.store.listPseudonyms(RUN.runId)).records).toEqual([]);
  });

  it('refuses a run whose map already has a first batch (PSEUDONYM_MAP_CONFLICT), overwriting nothing', async () => {
    const { store, masking } = setup();
    await maskNewRunTexts({ query: '客户 13912345678', title: 't' }, RUN, masking);
    const failure = await maskNewRunTexts({ query: '客户 13812345678', title: 't' }, RUN, masking).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(IncidentMaskingError);
    expect((failure as IncidentMaskingError).code).toBe('PSEUDONYM_MAP_CONFLICT');
    const { records } = await store.listPseudonyms(RUN.runId);
    expect(openPseudonymBatches(SECRET, RUN.runId, records).map((entry) => entry.value)).toEqual(['13912345678']);
  });

  it('cuts a question its pseudonyms made longer than the query’s byte limit, at a character boundary', async () => {
    const { masking } = setup();
    const query = `${'告'.repeat(30)} 1.2.3.4 5.6.7.8`;
    const masked = await maskNewRunTexts({ query, title: 't' }, RUN, masking, { maxQueryBytes: 100 });
    expect(Buffer.byteLength(masked.query)).toBeLessThanOrEqual(100);
    expect(masked.query).not.toContain('1.2.3.4');
    expect(masked.query.startsWith('告'.repeat(30))).toBe(true);
    const exact = await maskNewRunTexts({ query: '告'.repeat(40), title: 't' }, { ...RUN, runId: 'r2' }, masking, {
      maxQueryBytes: 120,
    });
    expect(exact.query).toBe('告'.repeat(40));
  });
});

describe('maskAttachedTitle', () => {
  it('masks a later event’s title with its run’s key (the run’s own pseudonym for a value) and writes nothing', async () => {
    const { store, masking } = setup();
    const own = createMaskingSession(masking.config, RUN.runId).maskText('13912345678');
    expect(maskAttachedTitle('又一次 13912345678 [MASKED:13912345678]', RUN.runId, masking)).toBe(
      `又一次 ${own} [MASKED:${own}]`,
    );
    expect((await store.listPseudonyms(RUN.runId)).records).toEqual([]);
  });
});
