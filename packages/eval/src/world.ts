/**
 * A scenario's world on this machine: its knowledge, logs (committed and generated) and MySQL catalog as the local
 * adapters' settings, and its MySQL seed in a database of its own, dropped when the scenario is done. Without a
 * `world/`, the repository's example world. A world that has no part (no `mysql/`, say) gets an empty one, never the
 * example world's: a scenario sees only the data it declares (a world without `mysql/` lists the example catalog
 * to the model but has no database: query_mysql answers NOT_CONFIGURED).
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadMysqlSeed } from '@diagnosis/devkit';
import { createConnection } from 'mysql2/promise';
import { generateLogFile } from './generate-logs.ts';
import type { Scenario } from './scenario.ts';

export interface WorldOptions {
  /** The repository root (for the example world). */
  repoRoot: string;
  /** A scratch folder of this eval run (removed at its end). */
  scratchDir: string;
  /** A MySQL/MariaDB URL allowed to create and drop databases; undefined: query_mysql is not configured. */
  mysqlAdminUrl: string | undefined;
}

export interface PreparedWorld {
  /** The evidence settings of this world, as the settings schema reads them. */
  settings: Record<string, string>;
  /** Where query_mysql reads: a database of this scenario's own, or nowhere (NOT_CONFIGURED). */
  mysql: 'OWN_DATABASE' | 'NOT_CONFIGURED';
  /** Lines generated for this run (large-logs worlds), 0 when none. */
  generatedLines: number;
  close(): Promise<void>;
}

/** `eval_<id>_<random>`: a database name that cannot collide with another run's (64 characters at most). */
function databaseName(scenarioId: string): string {
  return `eval_${scenarioId.replace(/-/g, '_')}_${Math.random().toString(36).slice(2, 10).padEnd(8, '0')}`;
}

function withDatabase(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function prepareWorld(scenario: Scenario, options: WorldOptions): Promise<PreparedWorld> {
  const examples = join(options.repoRoot, 'examples');
  const scratch = join(options.scratchDir, scenario.id);
  mkdirSync(scratch, { recursive: true });
  const empty = join(scratch, 'empty');
  mkdirSync(empty, { recursive: true });
  const world = scenario.worldDir;
  const part = (name: string) => (world !== undefined && existsSync(join(world, name)) ? join(world, name) : undefined);

  const knowledgeDir = world === undefined ? join(examples, 'knowledge') : (part('knowledge') ?? empty);
  let logsDir = world === undefined ? join(examples, 'logs') : (part('logs') ?? empty);
  let generatedLines = 0;
  if (scenario.generatedLogs.length > 0) {
    // The committed logs and the generated ones side by side in a scratch folder (never in the scenario's folder).
    const target = join(scratch, 'logs');
    mkdirSync(target, { recursive: true });
    for (const name of readdirSync(logsDir).filter((file) => file.endsWith('.jsonl'))) {
      copyFileSync(join(logsDir, name), join(target, name));
    }
    for (const file of scenario.generatedLogs) generatedLines += await generateLogFile(file, target);
    logsDir = target;
  }

  let catalogPath: string;
  let seedPath: string | undefined;
  if (world === undefined) {
    catalogPath = join(examples, 'mysql', 'catalog.json');
    seedPath = join(examples, 'mysql', 'seed.sql');
  } else if (part('mysql') !== undefined && existsSync(join(world, 'mysql', 'catalog.json'))) {
    catalogPath = join(world, 'mysql', 'catalog.json');
    seedPath = existsSync(join(world, 'mysql', 'seed.sql')) ? join(world, 'mysql', 'seed.sql') : undefined;
  } else {
    // NOTE: a catalog cannot be empty (the loader refuses it); the example catalog without a database makes
    // query_mysql answer NOT_CONFIGURED, so the scenario still sees no data it did not declare.
    catalogPath = join(examples, 'mysql', 'catalog.json');
  }

  const settings: Record<string, string> = {
    KNOWLEDGE_BACKEND: 'local',
    KNOWLEDGE_DIR: knowledgeDir,
    LOGS_BACKEND: 'local',
    LOGS_DIR: logsDir,
    MYSQL_CATALOG_PATH: catalogPath,
  };
  if (seedPath === undefined || options.mysqlAdminUrl === undefined) {
    return { settings, mysql: 'NOT_CONFIGURED', generatedLines, close: async () => undefined };
  }
  const database = databaseName(scenario.id);
  const adminUrl = options.mysqlAdminUrl;
  const databaseUrl = withDatabase(adminUrl, database);
  const admin = await createConnection({ uri: adminUrl });
  let created = false;
  try {
    await admin.query(`CREATE DATABASE \`${database}\``);
    created = true;
    await loadMysqlSeed(databaseUrl, seedPath);
  } catch (error) {
    if (created) await admin.query(`DROP DATABASE IF EXISTS \`${database}\``).catch(() => undefined);
    throw new WorldError(scenario.id, 'the MySQL seed could not be loaded', error);
  } finally {
    await admin.end().catch(() => undefined);
  }
  return {
    settings: { ...settings, MYSQL_URL: databaseUrl, MYSQL_STATEMENT_TIMEOUT_MS: '5000' },
    mysql: 'OWN_DATABASE',
    generatedLines,
    async close() {
      const connection = await createConnection({ uri: adminUrl });
      try {
        await connection.query(`DROP DATABASE IF EXISTS \`${database}\``);
      } finally {
        await connection.end();
      }
    },
  };
}

/** A world that could not be built; carries the driver's error code only (never its text: it may hold the URL). */
class WorldError extends Error {
  readonly code: string;
  constructor(scenario: string, what: string, cause: unknown) {
    const code = (cause as { code?: unknown } | null)?.code;
    super(`${scenario}: ${what}${typeof code === 'string' ? ` (${code})` : ''}`);
    this.name = 'WorldError';
    this.code = typeof code === 'string' ? code : 'WORLD_ERROR';
  }
}
