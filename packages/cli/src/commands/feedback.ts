import { userInfo } from 'node:os';
import type { PastIncidentChange } from '@diagnosis/core';
import { isRunId } from '@diagnosis/core/ids';
import { CliError, type Command, EXIT, printable, RUN_ID_FORM, usageError } from '../command-line.ts';
import { MASKING_SETTINGS, RATING_SETTINGS, STORE_SETTINGS } from '../setting-keys.ts';

/** The caller the command line records: this machine's user (the HTTP route records the IAM identity instead). */
function localCaller(env: Readonly<Record<string, string | undefined>>): string {
  let name = env.USER ?? env.LOGNAME;
  try {
    name ??= userInfo().username;
  } catch {
    name ??= 'unknown';
  }
  return `local:${name}`;
}

/**
 * `diagnosis feedback <runId> --verdict WRONG --root-cause "…"`: a verdict on an ended run of the table (the local
 * one by default; any table with DYNAMODB_ENDPOINT and DIAGNOSIS_TABLE_NAME), as `POST /runs/{runId}/feedback` records
 * it: idempotent per caller, a different verdict is a re-rating (the history is kept). Without --verdict: the run's
 * feedback so far.
 */
export const feedbackCommand: Command = {
  name: 'feedback',
  summary: "rate a run (CORRECT, PARTIALLY_CORRECT, WRONG, UNHELPFUL) or list a run's ratings",
  synopsis: '<runId> [--verdict <verdict>] [--root-cause <text>] [--note <text>] [--json]',
  description: [
    'Records a verdict on an ended run, as the HTTP route does: the same verdict again changes nothing, a different',
    'one is a re-rating and the earlier ones are kept. The caller is this machine’s user (local:<user>); a deployment',
    'records the IAM identity. Feedback is never evidence for a later run; `diagnosis eval capture` reads it to turn',
    'the run into a regression scenario. Without --verdict it lists the run’s ratings.',
  ],
  arguments: [['<runId>', 'the run to rate, as printed by diagnose, demo and runs']],
  settings: [...STORE_SETTINGS, ...MASKING_SETTINGS, ...RATING_SETTINGS],
  options: [
    {
      name: 'verdict',
      type: 'string',
      value: '<verdict>',
      description: 'CORRECT, PARTIALLY_CORRECT, WRONG or UNHELPFUL',
    },
    {
      name: 'root-cause',
      type: 'string',
      value: '<text>',
      description: 'the cause as you found it (1,000 characters)',
    },
    { name: 'note', type: 'string', value: '<text>', description: 'anything else (2,000 characters)' },
    { name: 'json', type: 'boolean', description: 'print the entry (or the list) as JSON' },
  ],
  examples: [
    'diagnosis feedback 01KB3… --verdict CORRECT',
    'diagnosis feedback 01KB3… --verdict WRONG --root-cause "payment-gateway 的证书过期"',
    'diagnosis feedback 01KB3…',
  ],
  exitCodes: [
    [EXIT.OK, 'rated (or rated so already), or the ratings listed'],
    [EXIT.NOT_FOUND, 'no run with that id in the table'],
    [EXIT.USAGE, 'bad usage: no run id, a bad verdict or text, or the run has not ended'],
    [EXIT.UNAVAILABLE, 'no DynamoDB (Java 17+ starts DynamoDB Local), or no such table at DYNAMODB_ENDPOINT'],
  ],
  async run({ values, positionals }, io) {
    const runId = positionals[0];
    if (runId === undefined) throw usageError('no run id: diagnosis feedback <runId> --verdict <verdict>');
    if (positionals.length > 1) throw usageError(`one run id only, not also '${printable(positionals[1] ?? '')}'`);
    if (!isRunId(runId)) throw usageError(`'${printable(runId)}' is not a run id (${RUN_ID_FORM})`);
    const { DiagnosisInputError, feedbackView, parseFeedbackInput, printable: clean } = await import('@diagnosis/core');
    const given = values.verdict !== undefined || values['root-cause'] !== undefined || values.note !== undefined;
    let input: ReturnType<typeof parseFeedbackInput> | null = null;
    if (given) {
      try {
        input = parseFeedbackInput({
          verdict: values.verdict,
          ...(values['root-cause'] === undefined ? {} : { rootCause: String(values['root-cause']) }),
          ...(values.note === undefined ? {} : { note: String(values.note) }),
        });
      } catch (error) {
        if (error instanceof DiagnosisInputError) {
          throw usageError(
            `${error.message.replace('rootCause', '--root-cause').replace('note', '--note')} (verdict: CORRECT, PARTIALLY_CORRECT, WRONG or UNHELPFUL)`,
          );
        }
        throw error;
      }
    }
    // NOTE: a rating is masked as the local runs were (the mode, the stage's patterns and exclusions, the secret) and
    // keeps its past incident as a deployed rating does (PAST_INCIDENT_RETENTION_DAYS); those settings are checked
    // before DynamoDB Local starts.
    const { localRatingSettings } = await import('../local/local-settings.ts');
    const rating = await localRatingSettings(io.env);
    const { createDynamoRunStore, createDynamoFeedbackStore } = await import('@diagnosis/core/store');
    const { composeRating } = await import('@diagnosis/functions');
    const { startLocalRuntime } = await import('../local/local-runtime.ts');
    const runtime = await startLocalRuntime(io.env);
    try {
      const store = createDynamoRunStore({ client: runtime.client, tableName: runtime.tableName });
      const feedback = createDynamoFeedbackStore({ client: runtime.client, tableName: runtime.tableName });
      const run = await store.getRun(runId);
      if (run === null) throw new CliError(EXIT.NOT_FOUND, `no run ${runId} in table ${runtime.tableName}`);
      if (input === null) {
        const entries = feedbackView(await feedback.listFeedback(runId));
        if (values.json === true) io.stdout(`${JSON.stringify(entries, null, 2)}\n`);
        else if (entries.length === 0) io.stdout(`run ${runId}: no feedback yet\n`);
        else for (const entry of entries) io.stdout(`${describeEntry(entry, clean)}\n`);
        return EXIT.OK;
      }
      try {
        // NOTE: the rating use case the deployed route runs: a local rating keeps the local enterprise's past
        // incidents as a deployed one does.
        const rate = composeRating({ client: runtime.client, tableName: runtime.tableName, ...rating });
        const { created, entry, memory } = await rate({ run, caller: localCaller(io.env), input });
        const [view] = feedbackView([entry]);
        if (values.json === true) io.stdout(`${JSON.stringify({ runId, created, feedback: view }, null, 2)}\n`);
        else {
          io.stdout(
            `run ${runId}: ${created ? 'rated' : 'already rated'} ${entry.verdict} (rating ${entry.sequence} by ${printable(entry.caller)})\n`,
          );
          if (memory !== null) io.stdout(`memory: ${describeMemoryChange(memory, entry.verdict, run.enterpriseId)}\n`);
        }
        return EXIT.OK;
      } catch (error) {
        if (error instanceof DiagnosisInputError) throw usageError(`run ${runId}: ${error.message} (${error.code})`);
        throw error;
      }
    } finally {
      await runtime.stop();
    }
  },
};

/**
 * What a rating did to the run's memory (docs/memory.md), in the words a responder uses: remembered as a past incident
 * that later runs meet as a lead, retracted, or why not.
 */
export function describeMemoryChange(change: PastIncidentChange, verdict: string, enterpriseId: string): string {
  const remembering = verdict === 'CORRECT' || verdict === 'PARTIALLY_CORRECT';
  switch (change) {
    case 'REMEMBERED':
      return `remembered as a past incident of ${enterpriseId}: its later runs meet it as a lead to check, never as evidence (diagnosis memory list --enterprise ${enterpriseId})`;
    case 'RETRACTED':
      return `the run's past incident is retracted for good: ${enterpriseId}'s later runs no longer meet it`;
    case 'ALREADY_RETRACTED':
      return remembering
        ? 'not remembered: a WRONG or UNHELPFUL rating (or a forget) retracted this run for good'
        : 'not remembered, and no later rating will remember it';
    case 'NOT_ELIGIBLE':
      return 'not remembered: only a published diagnosis with a conclusion becomes a past incident';
  }
}

function describeEntry(
  entry: {
    verdict: string;
    rootCause: string | null;
    note: string | null;
    caller: string;
    sequence: number;
    current: boolean;
    createdAt: string;
  },
  clean: (text: string) => string,
): string {
  const parts = [
    `${entry.current ? '*' : ' '} ${entry.verdict.padEnd(17)} ${clean(entry.caller)} #${entry.sequence} ${entry.createdAt}`,
  ];
  if (entry.rootCause !== null) parts.push(`    root cause: ${clean(entry.rootCause).replace(/\s+/g, ' ')}`);
  if (entry.note !== null) parts.push(`    note: ${clean(entry.note).replace(/\s+/g, ' ')}`);
  return parts.join('\n');
}
