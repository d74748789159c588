import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's `prometheus-alertmanager` puts its binary here. */
const BINARY = '/usr/bin/prometheus-alertmanager';

/**
 * Debian's Alertmanager: the binary when installed, else installed with apt-get when this process may (root, apt-get
 * present, as in CI); otherwise the reason it cannot be had, for the test to skip with.
 */
export function findOrInstallAlertmanager(): { binary: string } | { missing: string } {
  if (existsSync(BINARY)) return { binary: BINARY };
  if (process.getuid?.() !== 0) return { missing: `${BINARY} is missing and only root may apt-get install it` };
  try {
    const apt = {
      stdio: 'ignore' as const,
      timeout: 300_000,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    };
    execFileSync('apt-get', ['update', '-qq'], apt);
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'prometheus-alertmanager'], apt);
  } catch (error) {
    return { missing: `apt-get install prometheus-alertmanager failed (${(error as Error).name})` };
  }
  return existsSync(BINARY) ? { binary: BINARY } : { missing: `${BINARY} is still missing after apt-get install` };
}

/** A free loopback port (the OS picks one; it is closed again before Alertmanager binds it). */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject()));
    });
  });
}

export interface RunningAlertmanager {
  /** `http://127.0.0.1:<port>`: its API (`/api/v2/alerts`). */
  url: string;
  /** Posts alerts to its v2 API, as Prometheus does. */
  postAlerts(alerts: readonly PostableAlert[]): Promise<void>;
  /** Stops it (SIGTERM, then SIGKILL) and removes its storage. */
  stop(): Promise<void>;
  /** What it wrote on stderr (its log), for a failing test's message. */
  log(): string;
}

export interface PostableAlert {
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  startsAt?: string;
  endsAt?: string;
}

/**
 * Starts Alertmanager on a loopback port with `config` (YAML), its own storage directory and no cluster gossip, and
 * waits (bounded) until it answers `/-/ready`. NOTE: started under `timeout`, so even a test process killed before
 * its teardown leaves no Alertmanager running for long.
 */
export async function startAlertmanager(binary: string, config: string): Promise<RunningAlertmanager> {
  const directory = mkdtempSync(join(tmpdir(), 'alertmanager-'));
  const configFile = join(directory, 'alertmanager.yml');
  writeFileSync(configFile, config);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const environment: NodeJS.ProcessEnv = {
    ...process.env,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  };
  for (const key of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) delete environment[key];
  const child: ChildProcess = spawn(
    'timeout',
    [
      '300',
      binary,
      `--config.file=${configFile}`,
      `--storage.path=${join(directory, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
      '--log.level=debug',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env: environment },
  );
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-20_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(directory, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ready = await fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`Alertmanager did not become ready: ${log.slice(-2_000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    async postAlerts(alerts) {
      const response = await fetch(`${url}/api/v2/alerts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(alerts),
      });
      if (!response.ok) throw new Error(`Alertmanager refused the alerts: ${response.status} ${await response.text()}`);
    },
    stop,
    log: () => log,
  };
}
