/**
 * `diagnosis eval capture <runId>`: a stored run and its feedback as a scenario folder in the corpus's own format —
 * `scenario.json` (the query, enterprise, the run's `now` and time zone, the expectation from the responder's
 * verdict, the previous turn), `world/recorded.json` (what each executed tool call saw) and, where the audit holds
 * the model's responses, `scripted.json` replaying them. Read-only: the store's Get and Query calls only. What the
 * audit lacks for a faithful replay is listed in `capture.missing`, never invented.
 * NOTE: one concept, the scenario of a captured run, a little over 300 lines: reading the audit is capture-audit.ts's,
 * the model rounds as wire responses capture-conversation.ts's; what stays here (the expectation from the verdict, the
 * category, the recorded world, the catalog entries) decides together what the replay is scored against.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  canonicalOf,
  FEEDBACK_VERDICTS,
  type FeedbackVerdict,
  formatZonedIso,
  type RunFeedback,
  resultOfStoredRun,
  statusWordOf,
} from '@diagnosis/core';
import type { CapturedAudit } from './capture-audit.ts';
import { conversationOf } from './capture-conversation.ts';
import type { RecordedCall, RecordedWorld } from './recorded-world.ts';
import { type Category, SCENARIO_ID_PATTERN } from './scenario.ts';
import { observeResult, scoreRun } from './score.ts';

/** Why a run cannot be captured: a stable code and a sentence. */
export class CaptureError extends Error {
  override readonly name = 'CaptureError';
  readonly code: 'NO_FEEDBACK' | 'NO_EXPECTATION' | 'NOT_ENDED' | 'BAD_ID';
  constructor(code: CaptureError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

export interface CaptureOptions {
  /** The scenario id (the folder's name). */
  id: string;
  /** The deployment's time zone (the audit does not hold it). */
  timeZone: string;
  /** Where the run was read (a table name or `DynamoDB Local`), for the description. */
  sourceName: string;
  capturedAt: string;
  /** The corpus category; absent: inferred from the run (see {@link inferCategory}). */
  category?: Category;
  /**
   * The deployment's MySQL catalog (its `MYSQL_CATALOG_PATH`'s entries, as written): the entries the run's
   * query_mysql calls named are captured into the scenario's world, so the replay checks their inputs against them.
   * Absent: none captured (the replay lists the example catalog).
   */
  catalog?: { entries: readonly unknown[]; source: string };
}

export interface CapturedScenario {
  scenario: Record<string, unknown>;
  recording: RecordedWorld;
  /** Null when the audit holds no model response to replay. */
  scripted: Record<string, unknown> | null;
  /** The catalog entries the run's query_mysql calls named (`world/mysql/catalog.json`); null when it named none. */
  catalog: unknown[] | null;
  /** What a faithful replay would need that the audit does not hold. */
  missing: string[];
}

const KEYWORD_CHARS = 200;

/**
 * The scenario of a captured run, pure: its expectation from the responder's current verdict (the newest entry of
 * the newest caller) — a CORRECT run's conclusion keywords become `rootCause`; a WRONG run's conclusion becomes
 * `mustNotClaim` and the responder's root cause the `rootCause` (without one, the run must abstain) — its recorded
 * world, and its recorded conversation.
 */
export function buildCapturedScenario(audit: CapturedAudit, options: CaptureOptions): CapturedScenario {
  const { run } = audit;
  if (!SCENARIO_ID_PATTERN.test(options.id)) {
    throw new CaptureError('BAD_ID', 'the scenario id is lower-case letters, digits and dashes, at most 48');
  }
  if (run.status === 'QUEUED' || run.status === 'RUNNING') {
    throw new CaptureError('NOT_ENDED', `run ${run.runId} has not ended`);
  }
  const verdict = currentVerdict(audit.feedback);
  if (verdict === null) {
    throw new CaptureError('NO_FEEDBACK', `run ${run.runId} has no feedback: rate it first (diagnosis feedback)`);
  }
  const missing: string[] = [
    'the deployment time zone is not in the audit: the scenario takes the one given at capture',
  ];
  const conclusion = run.publishedResult?.draft.conclusion ?? null;
  const expected = expectationOf(verdict, conclusion);
  const recording = recordingOf(audit, options, missing);
  const catalog = usedCatalogEntries(recording, options.catalog, missing);
  const current = conversationOf(audit, missing, 'the run');
  const previousConversation =
    audit.previous === null ? null : conversationOf(audit.previous, missing, 'the previous turn');
  if (run.continueSession && audit.previous === null) {
    missing.push('the run continued a session but no earlier published run of it was found: captured without it');
  }
  const firstStep = audit.steps.find((step) => step.role !== 'JUDGE');
  const startedAt = Date.parse(firstStep?.startedAt ?? run.createdAt);
  const title = `Captured run ${run.runId}: ${oneLine(run.query, 120)}`;
  const scripted =
    current === null || (previousConversation === null && audit.previous !== null)
      ? null
      : {
          description: truncate(
            `RECORDED, not scripted: the model responses of run ${run.runId} as its audit holds them (a recording of this deployment's model${firstStep === undefined ? '' : ` ${firstStep.modelId}`}), read from ${options.sourceName} on ${options.capturedAt}.${missing.length > 0 ? ` Not in the audit: ${missing.join('; ')}.` : ''}`,
            2_000,
          ),
          ...current,
          ...(previousConversation === null ? {} : { previousTurn: previousConversation }),
        };
  if (current === null)
    missing.push('the audit holds no model round: no scripted.json (the scenario replays --live only)');
  // NOTE: offline, the recording repeats what the run did, so its replay scores what the run's own result scores
  // against the expectation (the scorer itself says so); when that is not CORRECT, the scenario says it is expected.
  const report = run.report as { kind?: unknown } | null;
  const recordedVerdict =
    typeof report?.kind === 'string'
      ? scoreRun(
          { ...expected, rootCause: expected.outcome === 'DIAGNOSIS' ? expected.rootCause : undefined },
          observeResult(resultOfStoredRun(run)),
        ).verdict
      : null;
  if (recordedVerdict === null) missing.push('the run item holds no report: what its replay scores is not predicted');
  const scenario = {
    id: options.id,
    title: truncate(title, 200),
    category: options.category ?? inferCategory(audit),
    enterpriseId: run.enterpriseId,
    now: formatZonedIso(Number.isFinite(startedAt) ? startedAt : Date.parse(run.createdAt), options.timeZone),
    timeZone: options.timeZone,
    query: run.query,
    ...(audit.previous === null ? {} : { previousTurn: { query: audit.previous.run.query } }),
    expected: {
      ...expected,
      ...(recordedVerdict !== null && recordedVerdict !== 'CORRECT' && scripted !== null
        ? {
            scripted: {
              verdict: recordedVerdict,
              why: `a recording of run ${run.runId}, rated ${verdict.verdict}: its offline replay repeats what the run concluded`,
            },
          }
        : {}),
    },
    probes: [],
    capture: {
      runId: run.runId,
      capturedAt: options.capturedAt,
      source: truncate(options.sourceName, 200),
      feedback: { verdict: verdict.verdict, rootCause: verdict.rootCause },
      original: { status: statusWordOf(run.status), conclusion },
      missing,
    },
  };
  return { scenario, recording, scripted, catalog, missing };
}

/**
 * The corpus category a captured run most likely belongs to: a follow-up; a run without a conclusion
 * (missing-context); else by the tool its published analysis cites first (logs, runbook, mysql); else logs.
 * `--category` overrides it.
 */
function inferCategory(audit: CapturedAudit): Category {
  if (audit.previous !== null) return 'follow-up';
  const published = audit.run.publishedResult;
  if (published === null || published.draft.conclusion === null) return 'missing-context';
  const first = published.citations[0]?.tool_name;
  if (first === 'lookup_knowledge') return 'runbook';
  if (first === 'query_mysql') return 'mysql';
  return 'logs';
}

/** The newest rating of the run: each caller's newest entry, then the newest of those. */
function currentVerdict(feedback: readonly RunFeedback[]): RunFeedback | null {
  let newest: RunFeedback | null = null;
  for (const entry of feedback) {
    if (!FEEDBACK_VERDICTS.includes(entry.verdict)) continue;
    if (newest === null || entry.createdAt > newest.createdAt) newest = entry;
  }
  return newest;
}

function expectationOf(feedback: { verdict: FeedbackVerdict; rootCause: string | null }, conclusion: string | null) {
  const wrong = feedback.verdict === 'WRONG' || feedback.verdict === 'UNHELPFUL';
  // NOTE: cut, never marked with an ellipsis: a keyword is matched as a substring of what a replay concludes.
  const mustNotClaim = wrong && conclusion !== null ? [conclusion.slice(0, KEYWORD_CHARS)] : [];
  const cause = wrong || feedback.verdict === 'PARTIALLY_CORRECT' ? (feedback.rootCause ?? null) : conclusion;
  const fallback = feedback.verdict === 'PARTIALLY_CORRECT' ? conclusion : null;
  const rootCause = cause ?? fallback;
  if (rootCause === null) {
    if (feedback.verdict === 'UNHELPFUL') {
      throw new CaptureError(
        'NO_EXPECTATION',
        'an UNHELPFUL rating without a root cause says nothing a replay could pass',
      );
    }
    // A right abstention, or a wrong conclusion whose real cause nobody named: the replay must not conclude.
    return { outcome: 'ABSTAIN' as const, mustNotClaim, requiredEvidence: [] };
  }
  return {
    outcome: 'DIAGNOSIS' as const,
    rootCause: { anyOf: [keywordsOf(rootCause)] },
    mustNotClaim,
    requiredEvidence: [],
  };
}

/** A pseudonym (`<phone:k3f2a>`) or a masking marker (`[REDACTED:password]`, `[MASKED:email]`) in a masked text. */
const MASKED_SPAN = /<[a-z][a-z0-9_]{0,23}:[a-z2-7]{5,13}>|\[(?:REDACTED|MASKED):[a-z0-9_]{1,24}\]/g;

/**
 * The keywords a conclusion must hold to name this root cause: its identifiers (service names, error codes, versions
 * — what any wording of the same cause keeps), else the text itself cut to 200 characters. NOTE: a stored text is
 * masked (the conclusion and the responder's root cause alike): a pseudonym names a customer, not a cause, and a
 * marker names what was removed, so neither is a keyword (a replay need not repeat them).
 */
export function keywordsOf(text: string): string[] {
  const unmasked = text.replace(MASKED_SPAN, ' ');
  const identifiers = [...new Set(unmasked.match(/[A-Za-z][A-Za-z0-9_.:/-]*[A-Za-z0-9]|\d+(?:\.\d+)+/g) ?? [])]
    .filter((word) => word.length >= 3)
    .sort((a, b) => b.length - a.length)
    .slice(0, 3);
  return identifiers.length > 0 ? identifiers : [text.trim().slice(0, KEYWORD_CHARS)];
}

function recordingOf(audit: CapturedAudit, options: CaptureOptions, missing: string[]): RecordedWorld {
  const calls: RecordedCall[] = [];
  for (const turn of audit.previous === null ? [audit] : [audit.previous, audit]) {
    for (const tool of turn.tools) {
      if (tool.disposition !== 'EXECUTED') continue;
      if (tool.inputTruncated) {
        missing.push(`call ${tool.toolCallId}: its input was cut in the audit, so it cannot be matched (not recorded)`);
        continue;
      }
      const observation = tool.observation as RecordedCall['observation'] | string | null;
      if (typeof observation !== 'object' || observation === null) {
        missing.push(`call ${tool.toolCallId}: its observation is not whole in the audit (not recorded)`);
        continue;
      }
      const input = (tool.input as { input?: unknown } | null)?.input;
      calls.push({ toolName: tool.toolName, input, observation });
    }
  }
  const seen = new Set<string>();
  const unique = calls.filter((call) => {
    const key = canonicalOf({ toolName: call.toolName, input: { input: call.input } });
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return {
    version: 1,
    kind: 'recorded',
    description: truncate(
      `RECORDED: the observations run ${audit.run.runId} (and its previous turn, if any) saw for each tool call it executed, read from ${options.sourceName} on ${options.capturedAt}. Any other input answers NOT_RECORDED.`,
      2_000,
    ),
    enterpriseId: audit.run.enterpriseId,
    calls: unique,
  };
}

/** Writes the folder (and `world/`); returns each file's size in bytes. */
export function writeCapturedScenario(dir: string, captured: CapturedScenario): Record<string, number> {
  mkdirSync(join(dir, captured.catalog === null ? 'world' : 'world/mysql'), { recursive: true });
  const files: [string, unknown][] = [
    ['scenario.json', captured.scenario],
    ['world/recorded.json', captured.recording],
    ...(captured.catalog === null ? [] : ([['world/mysql/catalog.json', captured.catalog]] as [string, unknown][])),
    ...(captured.scripted === null ? [] : ([['scripted.json', captured.scripted]] as [string, unknown][])),
  ];
  const sizes: Record<string, number> = {};
  for (const [name, value] of files) {
    const text = `${JSON.stringify(value, null, 2)}\n`;
    writeFileSync(join(dir, name), text, { flag: 'wx' });
    sizes[name] = Buffer.byteLength(text);
  }
  return sizes;
}

/**
 * The catalog entries the recording's query_mysql calls named, from the deployment's catalog given at capture (issue
 * 32 item 11: without them the replay checked every recorded call against the example catalog, refused each one, and
 * reported a CORRECT run REGRESSED). What cannot be captured is said in `missing`.
 */
function usedCatalogEntries(
  recording: RecordedWorld,
  catalog: CaptureOptions['catalog'],
  missing: string[],
): unknown[] | null {
  const named = new Set(
    recording.calls
      .filter((call) => call.toolName === 'query_mysql')
      .map((call) => (call.input as { query_name?: unknown } | null)?.query_name)
      .filter((name): name is string => typeof name === 'string'),
  );
  if (named.size === 0) return null;
  const entryName = (entry: unknown) => (entry as { name?: unknown } | null)?.name;
  const entries = (catalog?.entries ?? []).filter((entry) => named.has(String(entryName(entry))));
  const absent = [...named].filter((name) => !entries.some((entry) => entryName(entry) === name)).sort();
  if (absent.length > 0) {
    missing.push(
      `query_mysql ${absent.join(', ')} ${absent.length === 1 ? 'is' : 'are'} not in the catalog given at capture (${catalog?.source ?? 'none'}): the replay refuses ${absent.length === 1 ? 'it' : 'them'}`,
    );
  }
  missing.push(
    'the catalog the model was shown is not in the audit: the replay lists only the entries the run used, from the catalog given at capture',
  );
  return entries.length === 0 ? null : entries;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function oneLine(text: string, max: number): string {
  return truncate(text.replace(/\s+/g, ' ').trim(), max);
}
