/**
 * A real Alertmanager for tests: Debian's `prometheus-alertmanager` (installed by {@link findAlertmanager} when it is
 * missing and this process may run apt-get), started on loopback with its own configuration, storage folder and no
 * cluster gossip, its webhook receiver pointed at a URL the test gives (with the bearer token a deployment sets in
 * `http_config`). Where it cannot be installed the tests that need it are skipped with a loud message, or fail under
 * CI.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BINARY = '/usr/bin/prometheus-alertmanager';

/** The Alertmanager binary, installing Debian's package when it is missing; null (with a loud message) when it cannot be. */
export function findAlertmanager(): string | null {
  if (existsSync(BINARY)) return BINARY;
  try {
    if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
      const quiet = {
        stdio: 'ignore' as const,
        timeout: 300_000,
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      };
      execFileSync('apt-get', ['install', '-y', '-qq', 'prometheus-alertmanager'], quiet);
      if (!existsSync(BINARY)) {
        execFileSync('apt-get', ['update', '-qq'], quiet);
        execFileSync('apt-get', ['install', '-y', '-qq', 'prometheus-alertmanager'], quiet);
      }
    }
  } catch {
    // NOTE: reported below, as a skip (or a CI failure).
  }
  if (existsSync(BINARY)) return BINARY;
  const message = `Alertmanager (Debian's prometheus-alertmanager) is not installed and could not be: the real-Alertmanager tests are SKIPPED`;
  if (process.env.CI) throw new Error(message);
  console.warn(`\n!!! ${message} !!!\n`);
  return null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

export interface RunningAlertmanager {
  /** Its own API, e.g. `http://127.0.0.1:9093`. */
  url: string;
  /** Fires (or resolves, with `endsAt` in the past) alerts through `POST /api/v2/alerts`. */
  postAlerts(
    alerts: {
      labels: Record<string, string>;
      annotations?: Record<string, string>;
      startsAt?: string;
      endsAt?: string;
    }[],
  ): Promise<void>;
  stop(): Promise<void>;
}

/** Starts Alertmanager with one webhook receiver (`send_resolved`, a bearer token), grouped by `alertname`. */
export async function startAlertmanager(
  binary: string,
  receiver: { url: string; bearerToken: string; groupWait?: string; groupInterval?: string; repeatInterval?: string },
): Promise<RunningAlertmanager> {
  const folder = mkdtempSync(join(tmpdir(), 'alertmanager-'));
  const config = join(folder, 'alertmanager.yml');
  writeFileSync(
    config,
    [
      'route:',
      '  receiver: diagnosis',
      "  group_by: ['alertname']",
      `  group_wait: ${receiver.groupWait ?? '1s'}`,
      `  group_interval: ${receiver.groupInterval ?? '5m'}`,
      `  repeat_interval: ${receiver.repeatInterval ?? '4h'}`,
      'receivers:',
      '  - name: diagnosis',
      '    webhook_configs:',
      `      - url: ${JSON.stringify(receiver.url)}`,
      '        send_resolved: true',
      '        http_config:',
      '          authorization:',
      '            type: Bearer',
      `            credentials: ${JSON.stringify(receiver.bearerToken)}`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const child = spawn(
    binary,
    [
      `--config.file=${config}`,
      `--storage.path=${join(folder, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(folder, { recursive: true, force: true });
  };
  // NOTE: readiness is Alertmanager's own /-/ready, asked until it answers or the process ends (no fixed sleep).
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`Alertmanager exited at start: ${log}`);
    }
    const ready = await fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
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
      if (!response.ok) throw new Error(`Alertmanager refused the alerts: HTTP ${response.status}`);
    },
    stop,
  };
}
