import type { CitationEvidence, DiagnosisResult, RunEvidence } from '@diagnosis/core';
import { emptyRunUsage } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { OBSERVATION_PREVIEW_CHARS, renderReport } from '../../../../packages/cli/src/render/render-report.ts';
import {
  emptyReason,
  PAGE_FONT_STACK,
  renderCauseHtml,
  renderEvidenceHtml,
  renderEvidenceText,
  TRACE_WRAP_COLUMNS,
  wrapLines,
} from '../../../../packages/cli/src/render/trace-evidence.ts';

function citation(overrides: Partial<CitationEvidence> = {}): CitationEvidence {
  return {
    tool_call_id: 'call_a',
    verified: true,
    found: true,
    tool_name: 'query_logs',
    disposition: 'EXECUTED',
    status: 'READY',
    empty: false,
    code: null,
    input: '{"service":"payment-gateway"}',
    input_truncated: false,
    observation: `{"tool_call_id":"call_a","evidence_status":"OK","data":{"matched":1,"lines":[{"message":"${'连接池'.repeat(300)}"}]}}`,
    observation_truncated: false,
    summary: 'query_logs payment-gateway → 1 matching line, 1 shown',
    evaluation: 'GAINED',
    cited_by: [0],
    verdicts: [{ analysis_index: 0, verdict: 'SUPPORTED', reason: '日志显示连接池耗尽', removed: false }],
    ...overrides,
  };
}

const published: DiagnosisResult = {
  runId: 'run-1',
  status: 'PUBLISHED',
  report: {
    kind: 'DIAGNOSIS',
    draft: {
      conclusion: '连接池耗尽',
      analysis: [
        {
          type: 'FINDING',
          statement: '连接池耗尽',
          evidence_status: 'SUPPORTED',
          tool_call_ids: ['call_a'],
          scope: null,
        },
      ],
      action_plan: [],
      recommendations: [],
      limitations: { checked_scope: [], missing_info: [] },
    },
    citations: [{ tool_call_id: 'call_a', tool_name: 'query_logs', empty: false }],
  },
  stopReason: null,
  progress: null,
  usage: emptyRunUsage(),
};

const failure: RunEvidence['failure'] = {
  status: 'FAILED',
  stop_reason: null,
  collection_stop_reason: null,
  error_code: 'MODEL_FAILED',
  model_failure: { kind: 'CONNECTION', http_status: null, error_class: 'APICallError', network_code: 'ECONNREFUSED' },
  message: '模型服务调用失败。',
  reason: null,
};

describe('renderReport — the evidence behind each citation', () => {
  it('prints what each cited check asked and the start of what the model saw, and where the rest is', () => {
    const text = renderReport(published, {}, { citations: [citation()], omitted: 0, failure: null });
    expect(text).toContain('证据 Evidence (what each cited check asked, and what the model saw)');
    expect(text).toContain('  call_a  query_logs payment-gateway → 1 matching line, 1 shown');
    expect(text).toContain('    input: {"service":"payment-gateway"}');
    expect(text).toContain(`first ${OBSERVATION_PREVIEW_CHARS} characters of`);
    expect(text).toContain('all of it: --json or npm run trace');
    expect(text).toContain('    agent GAINED · judge 分析 1: SUPPORTED');
  });

  it('says when the Draft cites an id the run never saw, and prints nothing for a run without citations', () => {
    const unknown = citation({
      found: false,
      tool_name: null,
      input: null,
      observation: null,
      summary: 'no tool call',
    });
    const text = renderReport(published, {}, { citations: [unknown], omitted: 2, failure: null });
    expect(text).toContain('  call_a  no tool call');
    expect(text).not.toContain('    input:');
    expect(text).toContain('… 2 more citations not shown');
    expect(renderReport(published, {}, { citations: [], omitted: 0, failure: null })).not.toContain('Evidence');
  });
});

describe('the trace’s evidence and cause', () => {
  it('prints all of each observation in the trace text, pretty-printed and wrapped, and the cause of a failed run once', () => {
    const long = citation();
    const lines = renderEvidenceText({ citations: [long], omitted: 0, failure });
    const text = lines.join('\n');
    const at = lines.indexOf('    observation (EXECUTED READY):');
    expect(at).toBeGreaterThan(-1);
    expect(lines[at + 1]).toBe('      {');
    expect(lines[at + 2]).toBe('        "tool_call_id": "call_a",');
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(TRACE_WRAP_COLUMNS);
    // all of it: the 900 characters of the message are all there, across the wrapped lines
    expect(text.replace(/\n\s*/g, '')).toContain('连接池'.repeat(300));
    expect(text).toContain(
      'cause: FAILED · MODEL_FAILED · model endpoint CONNECTION · APICallError · ECONNREFUSED\n  why: the model endpoint’s call failed',
    );
    expect(text.split('模型服务调用失败。')).toHaveLength(2);
  });

  it('wraps a long line at the width, at a space or comma where there is one, keeping the indentation', () => {
    expect(wrapLines('  "a": "one two three four five six"', 16)).toEqual([
      '  "a": "one two',
      '    three four',
      '    five six"',
    ]);
    expect(wrapLines('x'.repeat(20), 8)).toEqual(['xxxxxxxx', '  xxxxxx', '  xxxxxx']);
    expect(wrapLines('short', 80)).toEqual(['short']);
  });

  it('escapes everything the model or a source wrote, in the id, the summary, the input and the observation', () => {
    const hostile = citation({
      tool_call_id: 'call_"><script>x</script>',
      summary: '<img src=x onerror=alert(1)>',
      input: '{"q":"</pre><script>alert(1)</script>"}',
      observation: '</pre><iframe src="https://evil.example"></iframe>',
      observation_truncated: true,
      verdicts: [{ analysis_index: 0, verdict: 'UNCLEAR', reason: '"><b>reason</b>', removed: true }],
    });
    const html = renderEvidenceHtml({ citations: [hostile], omitted: 0, failure: null });
    expect(html).not.toMatch(/<script|<img|<iframe|<b>|src="/);
    expect(html).toContain(`title="&#34;&#62;&#60;b&#62;reason`);
    expect(html).toContain('<details class="evidence" id="evidence-1">');
    expect(html).toContain('cut: not all of it is stored or shown');
    expect(html).toContain('judge #1 UNCLEAR · removed');
  });

  it('pretty-prints an observation that parses, and shows one that does not as it is', () => {
    const html = renderEvidenceHtml({ citations: [citation({ observation: '{"a":1}' })], omitted: 0, failure: null });
    expect(html).toContain('<pre>{\n  &#34;a&#34;: 1\n}</pre>');
  });

  it('explains an empty chart or timeline by the cause, or by the run still going', () => {
    const evidence = { citations: [], omitted: 0, failure };
    // NOTE: the cause is said once, in the cause block; an empty chart only points to it.
    expect(emptyReason(evidence, 'FAILED')).toBe('No model round completed (the cause is given above).');
    expect(emptyReason({ ...evidence, failure: null }, 'RUNNING')).toBe(
      'No model round is recorded yet: the run is RUNNING.',
    );
    expect(renderCauseHtml(evidence)).toContain('<span class="muted">model endpoint</span>');
    expect(renderCauseHtml(evidence)).toContain('<span class="muted">why</span><span>the model endpoint’s call failed');
    expect(renderCauseHtml({ ...evidence, failure: null })).toBe('');
  });

  it('declares a font stack with CJK fallbacks before the generic family', () => {
    const fonts = PAGE_FONT_STACK.split(',').map((font) => font.trim());
    expect(fonts.at(-1)).toBe('sans-serif');
    for (const cjk of ['"Noto Sans CJK SC"', '"Source Han Sans SC"', '"WenQuanYi Micro Hei"', '"PingFang SC"']) {
      expect(fonts).toContain(cjk);
    }
  });
});
