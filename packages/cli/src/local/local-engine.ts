/**
 * The one DynamoDB Local of a data folder, shared by every `diagnosis` command on that folder: found through
 * `<data>/dynamodb/engine.json` (its endpoint and the JVM's pid), started by the first command that needs it and left
 * running for the next ones (a read command then answers in well under a second instead of waiting for Java), and
 * stopped by `diagnosis local stop`. Two engines on one SQLite file would not see each other's writes, so a start
 * happens under `engine.lock`, an exclusive file that a second command waits on.
 *
 * NOTE: nothing in engine.json is trusted as it is: the note is used only when it parses strictly, its endpoint is a
 * loopback URL, its pid is a live process whose command line is DynamoDB Local on this very folder (a reused pid of
 * another program is never signalled), and the engine answers. Anything else is a stale note, removed and replaced.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';

export interface EngineNote {
  endpoint: string;
  pid: number;
  dbPath: string;
  startedAt: string;
}

/** How long a command waits for another one that is starting the folder's engine. */
const START_WAIT_MS = 45_000;
const POLL_MS = 100;
const LOOPBACK_ENDPOINT = /^http:\/\/127\.0\.0\.1:\d{1,5}$/;

const engineDbPath = (dataDir: string) => resolve(dataDir, 'dynamodb');
const noteFile = (dbPath: string) => resolve(dbPath, 'engine.json');
const lockFile = (dbPath: string) => resolve(dbPath, 'engine.lock');

const pause = (ms: number) => new Promise((resolveWait) => setTimeout(resolveWait, ms));

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The arguments of a process (Linux: /proc, exact; elsewhere: ps, split at spaces), or [] when unreadable. */
function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    try {
      return execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8', timeout: 2_000 })
        .trim()
        .split(' ');
    } catch {
      return [];
    }
  }
}

/** Whether `pid` is DynamoDB Local persisting to exactly `dbPath`. */
function isEngineProcess(pid: number, dbPath: string): boolean {
  if (!processAlive(pid)) return false;
  const parts = commandLine(pid);
  const at = parts.indexOf('-dbPath');
  return parts.some((part) => part.endsWith('DynamoDBLocal.jar')) && at !== -1 && parts[at + 1] === dbPath;
}

function readNote(dbPath: string): EngineNote | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(noteFile(dbPath), 'utf8'));
  } catch {
    return undefined;
  }
  const note = raw as Partial<EngineNote> | null;
  if (
    note === null ||
    typeof note !== 'object' ||
    typeof note.endpoint !== 'string' ||
    !LOOPBACK_ENDPOINT.test(note.endpoint) ||
    typeof note.pid !== 'number' ||
    !Number.isSafeInteger(note.pid) ||
    note.pid < 2 ||
    note.dbPath !== dbPath ||
    typeof note.startedAt !== 'string'
  ) {
    return undefined;
  }
  return { endpoint: note.endpoint, pid: note.pid, dbPath, startedAt: note.startedAt };
}

async function answers(endpoint: string): Promise<boolean> {
  const client = new DynamoDBClient({
    endpoint,
    maxAttempts: 1,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(3_000) });
    return true;
  } catch {
    return false;
  } finally {
    client.destroy();
  }
}

/** The folder's engine runs (its process is there) but does not answer: it is neither reused nor replaced. */
export class EngineNotAnswering extends Error {
  override readonly name = 'EngineNotAnswering';
  readonly pid: number;

  constructor(pid: number) {
    super(`DynamoDB Local (pid ${pid}) runs for this data folder but does not answer`);
    this.pid = pid;
  }
}

/**
 * The folder's running engine, or undefined (a stale note is removed). NOTE: an engine whose process is there but
 * does not answer (a loaded machine, a JVM still starting) is given a few seconds and then reported, never replaced:
 * a second engine on the same SQLite file would not see the first one's writes.
 */
export async function findEngine(dataDir: string): Promise<EngineNote | undefined> {
  const dbPath = engineDbPath(dataDir);
  const note = readNote(dbPath);
  if (note !== undefined && isEngineProcess(note.pid, dbPath)) {
    for (let attempt = 0; attempt < 4; attempt += 1) {
      if (await answers(note.endpoint)) return note;
      if (!isEngineProcess(note.pid, dbPath)) break;
      await pause(500);
    }
    if (isEngineProcess(note.pid, dbPath)) throw new EngineNotAnswering(note.pid);
  }
  rmSync(noteFile(dbPath), { force: true });
  return undefined;
}

/** Takes the start lock, or returns false when a live process holds it (a stale lock is taken over). */
function tryLock(dbPath: string): boolean {
  const path = lockFile(dbPath);
  try {
    const fd = openSync(path, 'wx', 0o600);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const holder = Number(safeRead(path));
  if (Number.isSafeInteger(holder) && holder > 1 && holder !== process.pid && processAlive(holder)) return false;
  // NOTE: a stale lock (its holder died while starting): remove it and race for a fresh one.
  rmSync(path, { force: true });
  return tryLock(dbPath);
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8').slice(0, 32);
  } catch {
    return '';
  }
}

/**
 * The folder's engine: the running one, else one this command starts (and leaves running). `onStart` is told when
 * a new one starts, so the command can say so. Throws when Java cannot start it.
 */
export async function acquireEngine(
  dataDir: string,
  onStart: (note: EngineNote) => void = () => undefined,
): Promise<{ note: EngineNote; started: boolean }> {
  const dbPath = engineDbPath(dataDir);
  mkdirSync(dbPath, { recursive: true });
  const deadline = Date.now() + START_WAIT_MS;
  for (;;) {
    const running = await findEngine(dataDir);
    if (running !== undefined) return { note: running, started: false };
    if (tryLock(dbPath)) break;
    if (Date.now() > deadline) throw new Error('another command has been starting DynamoDB Local for too long');
    await pause(POLL_MS);
  }
  try {
    const again = await findEngine(dataDir);
    if (again !== undefined) return { note: again, started: false };
    // NOTE: the devkit (its loopback servers, workflow interpreter and MySQL loader) only when Java must start.
    const { startDetachedDynamoDbLocal } = await import('@diagnosis/devkit');
    const engine = await startDetachedDynamoDbLocal({ dbPath });
    const note: EngineNote = { ...engine, dbPath, startedAt: new Date().toISOString() };
    // NOTE: written whole, then renamed: a reader never sees half a note.
    const temporary = `${noteFile(dbPath)}.${process.pid}`;
    writeFileSync(temporary, JSON.stringify(note), { mode: 0o600 });
    renameSync(temporary, noteFile(dbPath));
    onStart(note);
    return { note, started: true };
  } finally {
    rmSync(lockFile(dbPath), { force: true });
  }
}

/** Stops the folder's engine (SIGTERM, then SIGKILL after 5 s) and removes its note; undefined when none ran. */
export async function stopEngine(dataDir: string): Promise<EngineNote | undefined> {
  const dbPath = engineDbPath(dataDir);
  const note = readNote(dbPath);
  if (note === undefined || !isEngineProcess(note.pid, dbPath)) {
    rmSync(noteFile(dbPath), { force: true });
    return undefined;
  }
  process.kill(note.pid, 'SIGTERM');
  const deadline = Date.now() + 5_000;
  while (processAlive(note.pid) && Date.now() < deadline) await pause(POLL_MS);
  if (processAlive(note.pid)) process.kill(note.pid, 'SIGKILL');
  rmSync(noteFile(dbPath), { force: true });
  return note;
}
