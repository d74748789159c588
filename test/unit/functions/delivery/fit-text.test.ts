import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { fitText } from '../../../../functions/delivery/fit-text.ts';
import { escapeSlack } from '../../../../functions/delivery/slack-message.ts';

const boundaries = (text: string) =>
  new Set(
    [...new Intl.Segmenter('und', { granularity: 'word' }).segment(text)].map((part) => part.index).concat(text.length),
  );

describe('fitText', () => {
  it('makes its word segmenter at the first cut, not when it is loaded nor for a text that fits (the cold start)', async () => {
    const Original = Intl.Segmenter;
    const intl = Intl as { Segmenter: typeof Intl.Segmenter };
    let made = 0;
    intl.Segmenter = class extends Original {
      constructor(...args: ConstructorParameters<typeof Original>) {
        super(...args);
        made += 1;
      }
    };
    try {
      vi.resetModules();
      const fresh = await import('../../../../functions/delivery/fit-text.ts');
      expect(fresh.fitText('fits whole', 100)).toEqual({ text: 'fits whole', cut: false });
      expect(made).toBe(0);
      expect(fresh.fitText('connection pool exhausted', 20).text).toBe('connection pool…');
      expect(fresh.fitText('connection pool exhausted again', 20).text).toBe('connection pool…');
      expect(made).toBe(1);
    } finally {
      intl.Segmenter = Original;
    }
  });

  it('keeps a text that fits as it is', () => {
    expect(fitText('订单失败 & <b>', 100, escapeSlack)).toEqual({ text: '订单失败 &amp; &lt;b&gt;', cut: false });
  });

  it('cuts at a word boundary, never inside a word, an escape or an emoji, and marks the cut', () => {
    expect(fitText('connection pool exhausted', 20)).toEqual({ text: 'connection pool…', cut: true });
    expect(fitText('a & b & c & d', 12, escapeSlack).text).toBe('a &amp; b…');
    const family = '👨‍👩‍👧‍👦';
    const fitted = fitText(`${family}${family}${family}`, 20).text;
    expect(fitted).toBe(`${family}…`);
  });

  it('leaves out a single word longer than the whole limit instead of cutting it', () => {
    expect(fitText('x'.repeat(10_000), 3_000)).toEqual({ text: '…', cut: true });
  });

  it('always fits within the limit and ends a cut at a word boundary of the original (property)', () => {
    const text = fc.array(
      fc.oneof(
        fc.constantFrom('订单', '服务', ' ', '&', '<', '>', '👍🏽', '🇨🇳', 'connection', '\n', 'é', '<!channel>'),
        fc.string({ maxLength: 8 }),
      ),
      { maxLength: 200 },
    );
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 300 }), (parts, limit) => {
        const raw = parts.join('');
        const { text: fitted, cut } = fitText(raw, limit, escapeSlack);
        expect(fitted.length).toBeLessThanOrEqual(Math.max(limit, 1));
        expect(fitted.isWellFormed()).toBe(true);
        if (!cut) return;
        const kept = fitted.slice(0, -1).replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
        expect(raw.startsWith(kept)).toBe(true);
        // trimEnd may drop trailing spaces, which are their own segments: the boundary is at or after the kept text.
        const end = raw.slice(kept.length).match(/^\s*/)?.[0].length ?? 0;
        expect(boundaries(raw).has(kept.length) || boundaries(raw).has(kept.length + end)).toBe(true);
      }),
    );
  });
});
