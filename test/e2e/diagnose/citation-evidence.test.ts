// NOTE: over 300 lines on purpose: the evidence behind each citation through the Diagnose Lambda on one world, one
// citation kind per case.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DiagnosisResult, loadRunEvidence } from '@diagnosis/core';
import { createDynamoRunStore } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRunTrace } from '../../../packages/cli/src/render/load-run-trace.ts';
import { renderHtml } from '../../../packages/cli/src/render/trace-html.ts';
import { renderTimeline } from '../../../packages/cli/src/render/trace-timeline.ts';
import {
  CHROMIUM,
  fontconfigWithoutCjk,
  inkShare,
  isCjkFontName,
  type PageVisit,
  visitPage,
} from '../../support/chromium.ts';
import { localDynamoClient } from '../../support/dynamodb.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { e1001ScriptedConversation, httpEvent, lambdaContext } from '../../support/lambda-events.ts';

if (CHROMIUM === undefined && !process.env.CI) {
  console.warn(
    '\n!!! Chromium not found (apt-get install chromium): the trace page font and layout tests are SKIPPED !!!\n',
  );
}

let world: Awaited<ReturnType<typeof startE2eWorld>>;
let store: ReturnType<typeof createDynamoRunStore>;
let client: ReturnType<typeof localDynamoClient>;
let pages: string;
const scripted = e1001ScriptedConversation();

beforeAll(async () => {
  // The deployed default: the judge's verdicts are part of the evidence view.
  world = await startE2eWorld({ SEMANTIC_GUARD: 'enforce' });
  client = localDynamoClient();
  store = createDynamoRunStore({ client, tableName: world.tableName });
  pages = mkdtempSync(join(tmpdir(), 'trace-pages-'));
});
afterAll(async () => {
  await world?.cleanup();
  client?.destroy();
  rmSync(pages, { recursive: true, force: true });
});

const diagnose = (runId: string) =>
  world.handlers.diagnose(
    { runId, sessionId: 'ops-evidence', enterpriseId: 'E1001', query: scripted.query },
    lambdaContext(60_000),
  ) as Promise<DiagnosisResult>;

/** The stored observation text of a run's tool call, straight from the table. */
async function storedObservation(runId: string, toolCallId: string): Promise<string> {
  const item = (await world.items()).find(
    (candidate) =>
      candidate.pk === `RUN#${runId}` &&
      candidate.entity === 'tool_invocation' &&
      candidate.tool_call_id === toolCallId,
  );
  return String(item?.observation);
}

async function writePage(runId: string): Promise<string> {
  const trace = await loadRunTrace(store, runId, false);
  if (trace === null) throw new Error(`no run ${runId}`);
  const path = join(pages, `${runId}.html`);
  writeFileSync(path, renderHtml(trace));
  return path;
}

/**
 * How wide a Chinese string is drawn in the page's own font stack, in ems per character: a CJK font draws each
 * character one em wide; the boxes drawn where no font has the glyph are far narrower (≈ 0.4 em).
 */
const CJK_WIDTH_PROBE = `(async () => {
  await document.fonts.ready;
  const probe = document.createElement('span');
  probe.style.font = '32px ' + getComputedStyle(document.body).fontFamily;
  probe.textContent = '订单失败为什么';
  document.body.append(probe);
  const width = probe.getBoundingClientRect().width;
  probe.remove();
  const blocks = [...document.querySelectorAll('details.evidence')].map(
    (block) => block.querySelectorAll('pre').length + ':' + block.open,
  );
  return { emsPerCharacter: width / (7 * 32), blocks: blocks.join(',') };
})()`;

/**
 * Every badge (`.chip`) of the page whose painted box (its background and padding, line by line) covers text outside
 * it: the text above it, or another badge. NOTE: an inline box's vertical padding is painted but takes no room in its
 * line, so a badge with one draws over the line above — measured on the laid-out page, not read from the CSS. Then the
 * same measure with every badge drawn inline with the 12px padding that once reached some through a shared class name
 * (`padded`): the probe's own check that it sees an overlap when there is one, in the same browser visit.
 */
const BADGE_OVERLAP_PROBE = `(async () => {
  await document.fonts.ready;
  const measure = () => {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const texts = [];
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      // NOTE: the text of a closed <details> is laid out but not drawn (its rectangles are not on screen).
      if (node.textContent.trim() === '' || !node.parentElement.checkVisibility()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      texts.push({ node, rects: [...range.getClientRects()] });
    }
    const overlaps = [];
    for (const chip of document.querySelectorAll('.chip')) {
      for (const box of chip.getClientRects()) {
        for (const text of texts) {
          if (chip.contains(text.node)) continue;
          const hit = text.rects.find((rect) =>
            Math.min(box.right, rect.right) - Math.max(box.left, rect.left) > 1 &&
            Math.min(box.bottom, rect.bottom) - Math.max(box.top, rect.top) > 1);
          if (hit !== undefined) overlaps.push(chip.textContent + ' covers ' + text.node.textContent.slice(0, 40));
        }
      }
    }
    return [...new Set(overlaps)];
  };
  const chips = document.querySelectorAll('.chip').length;
  const overlaps = measure();
  const style = document.createElement('style');
  style.textContent = '.chip { display: inline; padding: 12px 8px; }';
  document.head.append(style);
  return { chips, overlaps, padded: measure() };
})()`;

const emsPerCharacter = (visit: PageVisit) => (visit.evaluate as { emsPerCharacter: number }).emsPerCharacter;

/**
 * Whether the page's Chinese was drawn with a CJK font: by the platform fonts Chromium used, and by width. NOTE: not by
 * `document.fonts.check('16px "Noto Sans CJK SC"', '订单')`: for a local font with no @font-face, Chromium 156 answers
 * true whether or not the font is installed (measured with the CJK fonts hidden), so that check could not fail.
 */
function drawnWithCjkFont(visit: PageVisit): boolean {
  const cjk = visit.platformFonts.filter((font) => isCjkFontName(font.familyName));
  const glyphs = cjk.reduce((sum, font) => sum + font.glyphCount, 0);
  // The query `E1001 的订单从 14:05 开始大量失败，为什么？` has 15 CJK characters and full-width punctuation.
  return glyphs >= 15 && emsPerCharacter(visit) > 0.9;
}

describe('the evidence behind each citation, through the Diagnose Lambda and DynamoDB Local', () => {
  const published = `evidence-${Date.now().toString(36)}`;

  it('gives every published citation its tool, canonical input, the audited observation and the judge’s verdicts', async () => {
    world.server.script.push(...structuredClone(scripted.responses));
    world.server.judgeScript.push(...structuredClone(scripted.judgeResponses));
    const result = await diagnose(published);
    expect(result.status).toBe('PUBLISHED');

    const loaded = await loadRunEvidence(store, published);
    const citations = loaded?.evidence.citations ?? [];
    expect(citations.map((citation) => [citation.tool_call_id, citation.tool_name])).toEqual([
      ['call_00_Hs7dFq2WkZ9nB4vXeR6tMy3c', 'query_logs'],
      ['call_00_Jp5tGm8XcV1bN7qWzK4sLd2e', 'query_logs'],
      ['call_00_Rk9nTz3QmW6pX2vBcH8yFs5g', 'query_logs'],
      ['call_00_Vw3kQz8RbN2mT6yHcJ5pLx1a', 'lookup_knowledge'],
    ]);
    for (const citation of citations) {
      expect(citation).toMatchObject({ verified: true, found: true, disposition: 'EXECUTED', status: 'READY' });
      // Exactly the observation the audit recorded for the call: what the model saw.
      expect(citation.observation).toBe(await storedObservation(published, citation.tool_call_id));
      expect(citation.observation_truncated).toBe(false);
    }
    expect(citations[1]).toMatchObject({
      input:
        '{"end_time":"2026-11-30T15:00:00+08:00","keyword":"HikariPool","limit":10,"service":"payment-gateway","start_time":"2026-11-30T14:00:00+08:00"}',
      summary:
        'query_logs payment-gateway 2026-11-30 14:00–15:00 keyword=HikariPool limit=10 → 67 matching lines, 10 shown',
      evaluation: 'GAINED',
      verdicts: [{ analysis_index: 1, verdict: 'SUPPORTED', removed: false }],
    });
    expect(citations[2]?.verdicts).toMatchObject([
      { analysis_index: 2, verdict: 'SUPPORTED', removed: false },
      { analysis_index: 3, verdict: 'UNCLEAR', removed: true },
    ]);
    expect(loaded?.evidence.failure).toBeNull();
  });

  it('shows each citation’s tool, input and observation in the trace text', async () => {
    const trace = await loadRunTrace(store, published, false);
    const text = renderTimeline(trace ?? (undefined as never));
    expect(text).toContain('evidence behind the citations:');
    for (const citation of trace?.evidence.citations ?? []) {
      expect(text).toContain(`  ${citation.tool_call_id}  ${citation.summary}`);
      expect(text).toContain(`    input: ${citation.input}`);
      // the observation pretty-printed and wrapped under its heading: all of it, none of its lines too wide
      expect(text).toContain('    observation (EXECUTED READY):\n      {\n        "tool_call_id": ');
      const pretty = JSON.stringify(JSON.parse(citation.observation ?? ''), null, 2);
      expect(text.replace(/\s+/g, '')).toContain(pretty.replace(/\s+/g, ''));
    }
    for (const line of text.split('\n').filter((candidate) => candidate.startsWith('      '))) {
      expect([...line].length).toBeLessThanOrEqual(110);
    }
    // Every tool line of the timeline says what was asked and what came back, not only its status.
    expect(text).toContain(
      '    lookup_knowledge “订单失败 支付超时 排查” service=order-service top_k=3 → 3 runbook hits: 订单服务下单失败排查',
    );
  });

  it('draws the time chart of a fast run against its own duration, labelled in time, and says PUBLISHED', async () => {
    const trace = await loadRunTrace(store, published, false);
    if (trace === null) throw new Error('no trace');
    const html = renderHtml(trace);
    const took = Date.parse(trace.run.endedAt ?? '') - Date.parse(trace.run.createdAt);
    expect(html).toContain(
      `Time elapsed at the end of each round (the run took ${(took / 1_000).toFixed(2)} s; its deadline was`,
    );
    const timeChart = html.slice(html.indexOf('aria-label="time used per round"'));
    const heights = [...timeChart.slice(0, timeChart.indexOf('</svg>')).matchAll(/height="(\d+)"/g)].map((m) =>
      Number(m[1]),
    );
    // NOTE: the last round ends at (almost) the end of the run: its bar is (nearly) full height, not one pixel.
    expect(Math.max(...heights)).toBeGreaterThanOrEqual(100);
    expect(timeChart).toMatch(/class="axis">\d+ ms<\/text>|class="axis">\d+\.\d\d s<\/text>/);
    expect(html).toContain('<span class="status">PUBLISHED</span>');
    expect(renderTimeline(trace).split('\n')[0]).toMatch(/^run \S+ {3}PUBLISHED/);
  });

  it('keeps raw evidence off GET /runs/{runId}: that route shows status and report, the audit route the evidence', async () => {
    const response = (await world.handlers.getRun(
      httpEvent({ method: 'GET', path: `/runs/${published}`, pathParameters: { runId: published } }),
      lambdaContext(5_000),
    )) as { statusCode: number; body: string };
    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain('HikariPool-1 - pool stats');
    expect(JSON.parse(response.body)).not.toHaveProperty('evidence');
  });

  it('says why a failed run has no rounds, charts or citations: its cause, never the endpoint’s answer', async () => {
    const failed = `evidence-failed-${Date.now().toString(36)}`;
    world.server.script.push({ status: 401, body: { error: { message: 'EVIDENCE-BODY-MARKER invalid key' } } });
    const result = await diagnose(failed);
    expect(result.status).toBe('FAILED');

    const loaded = await loadRunEvidence(store, failed);
    expect(loaded?.evidence).toEqual({
      citations: [],
      omitted: 0,
      failure: {
        status: 'FAILED',
        stop_reason: null,
        collection_stop_reason: null,
        error_code: 'MODEL_FAILED',
        model_failure: { kind: 'HTTP', http_status: 401, error_class: 'APICallError', network_code: null },
        message: expect.any(String),
        reason: null,
      },
    });
    const trace = await loadRunTrace(store, failed, true);
    const text = renderTimeline(trace ?? (undefined as never));
    expect(text).toContain('No model round completed (the cause is given below).');
    expect(text).toContain('cause: FAILED · MODEL_FAILED · model endpoint HTTP 401 · APICallError');
    expect(text).toContain('  why: the model endpoint’s call failed');
    const html = renderHtml(trace ?? (undefined as never));
    expect(html).toContain('Why this run did not publish a diagnosis');
    expect(html).toContain('<span class="muted">why</span><span>the model endpoint’s call failed');
    // NOTE: the cause once, in its block: the empty charts and the timeline only point to it, the report adds nothing.
    expect(html.match(/<p class="empty">No model round completed \(the cause is given above\)/g)).toHaveLength(2);
    const message = loaded?.evidence.failure?.message ?? '';
    expect(html.split(message)).toHaveLength(2);
    expect(html.match(/MODEL_FAILED/g)).toHaveLength(1);
    expect(`${text}${html}`).not.toContain('EVIDENCE-BODY-MARKER');
  });
});

describe.skipIf(!CHROMIUM && !process.env.CI)('the trace page in headless Chromium', () => {
  const runId = `evidence-page-${Date.now().toString(36)}`;
  let page = '';

  beforeAll(async () => {
    world.server.script.push(...structuredClone(scripted.responses));
    world.server.judgeScript.push(...structuredClone(scripted.judgeResponses));
    await diagnose(runId);
    page = await writePage(runId);
  });

  it('draws the Chinese text with a CJK font, shows one collapsible block per citation, and is not blank', async () => {
    const visit = await visitPage(`file://${page}`, CJK_WIDTH_PROBE, { fontsOf: '#query', fullPage: true });
    expect(visit.consoleErrors).toEqual([]);
    expect(visit.platformFonts.some((font) => isCjkFontName(font.familyName))).toBe(true);
    expect(drawnWithCjkFont(visit)).toBe(true);
    // A page of text and charts: well over 2% of its pixels are not background.
    expect(inkShare(visit.screenshot)).toBeGreaterThan(0.02);
    // Four citations, each a closed <details> with its input and its observation.
    expect((visit.evaluate as { blocks: string }).blocks).toBe('2:false,2:false,2:false,2:false');
  });

  it('draws no judge or finding badge over the text above it', async () => {
    const visit = await visitPage(`file://${page}`, BADGE_OVERLAP_PROBE);
    const measured = visit.evaluate as { chips: number; overlaps: string[]; padded: string[] };
    // 4 tool outcomes in the timeline, 3 findings, each citation’s agent badge (4) and judge badges (6, two UNCLEAR).
    expect(measured.chips).toBe(17);
    expect(measured.overlaps).toEqual([]);
    expect(measured.padded.length).toBeGreaterThan(0);
  });

  it('fails those checks where no CJK font is installed, and on a blank page', async () => {
    const fonts = fontconfigWithoutCjk();
    try {
      const visit = await visitPage(`file://${page}`, CJK_WIDTH_PROBE, {
        fontsOf: '#query',
        environment: { FONTCONFIG_FILE: fonts.file },
      });
      expect(visit.platformFonts.length).toBeGreaterThan(0);
      expect(visit.platformFonts.some((font) => isCjkFontName(font.familyName))).toBe(false);
      expect(emsPerCharacter(visit)).toBeLessThan(0.9);
      expect(drawnWithCjkFont(visit)).toBe(false);
    } finally {
      fonts.cleanup();
    }
    const blank = join(pages, 'blank.html');
    writeFileSync(blank, '<!doctype html><html><body></body></html>');
    expect(inkShare((await visitPage(`file://${blank}`, '1')).screenshot)).toBe(0);
  });
});
