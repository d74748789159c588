/**
 * `diagnosis eval capture <runId> [--out DIR] [--table NAME] [--time-zone TZ]`: a run and its feedback as a scenario
 * folder (see capture-run.ts). The caller gives the DynamoDB client: the bin's local runtime, or a deployed table
 * with the default AWS credentials (`--table`).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEFAULT_TIME_ZONE, isRunId, isTimeZone } from '@diagnosis/core';
import { loadCapturedAudit } from './capture-audit.ts';
import { buildCapturedScenario, CaptureError, writeCapturedScenario } from './capture-run.ts';
import { createCaptureSource } from './capture-source.ts';
import { REPO_ROOT } from './run-eval.ts';
import { CATEGORIES, type Category } from './scenario.ts';

export interface CaptureRequest {
  runId: string;
  out: string | undefined;
  timeZone: string | undefined;
  /** The corpus category; absent: inferred from the run. */
  category?: string | undefined;
  client: DynamoDBClient;
  tableName: string;
  /** How the table is named in the scenario (never an endpoint URL, which may carry credentials). */
  sourceName: string;
  /** The deployment's MySQL catalog file (MYSQL_CATALOG_PATH); absent: the example catalog. */
  catalogPath?: string | undefined;
  now?: () => number;
}

export type CaptureOutcome =
  | { ok: true; dir: string; id: string; sizes: Record<string, number>; missing: string[]; scripted: boolean }
  | { ok: false; exit: 'USAGE' | 'NOT_FOUND'; message: string };

/** A catalog file is a settings file, not data: larger than this is refused. */
const MAX_CATALOG_BYTES = 256 * 1024;

/** The catalog's entries as the file writes them (the run's own adapters checked them at its cold start). */
function readCatalogEntries(path: string): unknown[] | { problem: string } {
  try {
    if (statSync(path).size > MAX_CATALOG_BYTES) return { problem: 'the MySQL catalog is over 256 KiB' };
    const entries: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return Array.isArray(entries) ? entries : { problem: 'the MySQL catalog is not a JSON array' };
  } catch {
    return { problem: 'the MySQL catalog (MYSQL_CATALOG_PATH) cannot be read as JSON' };
  }
}

/** The scenario id of a captured run: `captured-<run id in lower case>`, at most 48 characters. */
export function capturedScenarioId(runId: string): string {
  return `captured-${runId.toLowerCase().replace(/[^a-z0-9-]+/g, '-')}`.slice(0, 48).replace(/-+$/, '');
}

export async function captureRun(request: CaptureRequest): Promise<CaptureOutcome> {
  if (!isRunId(request.runId)) return { ok: false, exit: 'USAGE', message: 'not a run id' };
  const timeZone = request.timeZone ?? DEFAULT_TIME_ZONE;
  if (!isTimeZone(timeZone)) return { ok: false, exit: 'USAGE', message: '--time-zone is not an IANA time zone name' };
  const category = request.category;
  if (category !== undefined && !(CATEGORIES as readonly string[]).includes(category)) {
    return { ok: false, exit: 'USAGE', message: `--category is one of ${CATEGORIES.join(', ')}` };
  }
  const dir = resolve(request.out ?? resolve(REPO_ROOT, 'eval/scenarios', capturedScenarioId(request.runId)));
  const id = dir.split('/').pop() ?? '';
  if (existsSync(dir)) return { ok: false, exit: 'USAGE', message: `${dir} exists already: choose another --out` };
  const catalog = readCatalogEntries(request.catalogPath ?? resolve(REPO_ROOT, 'examples/mysql/catalog.json'));
  if (!Array.isArray(catalog)) return { ok: false, exit: 'USAGE', message: catalog.problem };
  const audit = await loadCapturedAudit(request.runId, createCaptureSource(request.client, request.tableName));
  if (audit === null)
    return { ok: false, exit: 'NOT_FOUND', message: `no run ${request.runId} in ${request.sourceName}` };
  try {
    const captured = buildCapturedScenario(audit, {
      id,
      timeZone,
      sourceName: request.sourceName,
      ...(category === undefined ? {} : { category: category as Category }),
      capturedAt: new Date((request.now ?? Date.now)()).toISOString(),
      catalog: {
        entries: catalog,
        source: request.catalogPath === undefined ? 'the example catalog' : 'MYSQL_CATALOG_PATH',
      },
    });
    const sizes = writeCapturedScenario(dir, captured);
    return { ok: true, dir, id, sizes, missing: captured.missing, scripted: captured.scripted !== null };
  } catch (error) {
    if (error instanceof CaptureError) return { ok: false, exit: 'USAGE', message: error.message };
    throw error;
  }
}
