/**
 * What a test file may leave behind for the next file of a shared worker process (`isolate: false`, where files run
 * one after another in one process on one module graph): `captureProcessState()` before the file, `leftoverState()`
 * after its last hook names every difference. The process-wide state a test can change is checked: the environment
 * and working directory, the exit code, globals added or removed, the console's methods, process listeners, fake
 * timers still installed, a spy or mock left on a built-in (`vi.spyOn(String.prototype, …)` never restored), and
 * timers, sockets, servers and child processes left keeping the event loop alive.
 *
 * NOTE: the source modules keep no module-level mutable state (the house style: per-run state lives in closures built
 * per run), so two files sharing a module graph share only constants; what a module could still hold is a cache of
 * derived constants, which a later file reads the same.
 */
import { vi } from 'vitest';

const EVENTS = ['exit', 'beforeExit', 'SIGINT', 'SIGTERM', 'uncaughtException', 'unhandledRejection', 'warning'];
const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;
// NOTE: the handles a finished test may not leave open. A file's last operation can still be closing a socket when
// its afterAll runs (the kind then shows as the close's request, not as the socket), so requests in flight are not
// counted: only what keeps running by itself. Timers are followed one by one instead (`trackTimers`): the test
// runner keeps timers of its own, which a count would mistake for the file's.
const LASTING = new Set(['TCPServerWrap', 'TCPSocketWrap', 'PipeServerWrap', 'ProcessWrap', 'UDPWrap']);

const TIMERS = Symbol.for('diagnosis.test.timers');
interface TrackedTimer {
  timer: NodeJS.Timeout;
  /** Where it was set: the first frame of the caller's stack. */
  setAt: string;
}

/**
 * Makes `setTimeout` and `setInterval` note each timer they set, once per worker process (a shared worker evaluates
 * its setup files again for each file), so that a timer a file leaves running can be named with where it was set.
 * The test runner's own timers never pass here: it keeps the functions it found before any setup file ran.
 */
export function trackTimers(): void {
  const shared = globalThis as { [TIMERS]?: Set<TrackedTimer> };
  if (shared[TIMERS] !== undefined) return;
  const timers = new Set<TrackedTimer>();
  shared[TIMERS] = timers;
  for (const name of ['setTimeout', 'setInterval'] as const) {
    const original = globalThis[name] as (...args: unknown[]) => NodeJS.Timeout;
    const tracking = function (this: unknown, ...args: unknown[]) {
      const timer = original.apply(this, args);
      const setAt = (new Error().stack ?? '').split('\n').slice(2, 3).join('').trim();
      timers.add({ timer, setAt });
      return timer;
    };
    // NOTE: its own properties too (util.promisify's custom form of setTimeout).
    Object.defineProperties(tracking, Object.getOwnPropertyDescriptors(original));
    globalThis[name] = tracking as never;
  }
}

/** The timers set through `trackTimers` that are still due and keep the process alive. */
function liveTimers(): TrackedTimer[] {
  const timers = (globalThis as { [TIMERS]?: Set<TrackedTimer> })[TIMERS] ?? new Set();
  for (const entry of timers) {
    if ((entry.timer as { _destroyed?: boolean })._destroyed === true) timers.delete(entry);
  }
  return [...timers].filter((entry) => entry.timer.hasRef());
}

/** The built-ins a test spies on; a method of one of them left as a mock is named. */
function builtIns(): [string, object][] {
  return [
    ['globalThis', globalThis],
    ['Object', Object],
    ['Array', Array],
    ['Array.prototype', Array.prototype],
    ['String.prototype', String.prototype],
    ['Number.prototype', Number.prototype],
    ['RegExp.prototype', RegExp.prototype],
    ['Map.prototype', Map.prototype],
    ['Set.prototype', Set.prototype],
    ['Promise', Promise],
    ['Date', Date],
    ['Date.prototype', Date.prototype],
    ['Math', Math],
    ['JSON', JSON],
    ['crypto', globalThis.crypto],
    ['process', process],
    ['process.stdout', process.stdout],
    ['process.stderr', process.stderr],
  ];
}

/**
 * Globals a library defines on itself when it is first imported, not a test's doing (a file that imports it in a
 * test, as a deploy test imports sst.config.ts, is the first to see them): never reported.
 */
const LIBRARY_GLOBALS = new Set<string | symbol>([
  'awslambda', // @aws/lambda-invoke-store, under the AWS SDK and Powertools
  '__zod_globalConfig', // zod 4, under the AI SDK
  '__zod_globalRegistry',
  '__core-js_shared__', // lodash's copy of core-js's check, under the DeepSeek tokenizer
  '__SST_RESOURCE_RAW__', // sst's Resource
  '__SST_RESOURCE_ENVIRONMENT__',
  // Node's own fetch (undici), set when a Response, Request or Headers is first made
  Symbol.for('undici.globalDispatcher.1'),
  Symbol.for('undici.globalDispatcher.2'),
  // tslib's helpers, set as globals by its UMD build (under the AWS SDK's Smithy clients)
  ...['extends', 'assign', 'rest', 'decorate', 'param', 'esDecorate', 'runInitializers', 'propKey']
    .concat(['setFunctionName', 'metadata', 'awaiter', 'generator', 'exportStar', 'createBinding', 'values', 'read'])
    .concat(['spread', 'spreadArrays', 'spreadArray', 'await', 'asyncGenerator', 'asyncDelegator', 'asyncValues'])
    .concat(['makeTemplateObject', 'importStar', 'importDefault', 'classPrivateFieldGet', 'classPrivateFieldSet'])
    .concat(['classPrivateFieldIn', 'addDisposableResource', 'disposeResources', 'rewriteRelativeImportExtension'])
    .map((helper) => `__${helper}`),
]);

export interface ProcessState {
  environment: Record<string, string | undefined>;
  cwd: string;
  exitCode: typeof process.exitCode;
  globals: Set<string | symbol>;
  console: Record<string, unknown>;
  listeners: number[];
  handles: Map<string, number>;
  timers: Set<TrackedTimer>;
}

function lastingHandles(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) {
    if (LASTING.has(kind)) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return counts;
}

export function captureProcessState(): ProcessState {
  return {
    environment: { ...process.env },
    cwd: process.cwd(),
    exitCode: process.exitCode,
    globals: new Set(Reflect.ownKeys(globalThis)),
    console: Object.fromEntries(CONSOLE_METHODS.map((method) => [method, console[method]])),
    listeners: EVENTS.map((event) => process.listenerCount(event)),
    handles: lastingHandles(),
    timers: new Set(liveTimers()),
  };
}

/**
 * Resolves once handles closed just before have closed: Node answers `server.close()` and `socket.destroy()` before
 * the event loop has closed the handle, which takes two more turns of the loop. Await it before `leftoverState`.
 */
export async function handlesClosed(): Promise<void> {
  for (let turn = 0; turn < 2; turn += 1) await new Promise((next) => setImmediate(next));
}

/**
 * Every difference between the process now and `before`, one line each; empty when the file left nothing. `handles:
 * false` leaves out the handles (a file on DynamoDB Local and loopback servers ends with keep-alive sockets that its
 * clients own and close lazily).
 */
export function leftoverState(before: ProcessState, options: { handles?: boolean } = {}): string[] {
  const found: string[] = [];
  const keys = new Set([...Object.keys(before.environment), ...Object.keys(process.env)]);
  const changed = [...keys].filter((key) => process.env[key] !== before.environment[key]).sort();
  if (changed.length > 0) found.push(`process environment keys changed: ${changed.join(', ')}`);
  if (process.cwd() !== before.cwd) found.push(`working directory changed to ${process.cwd()}`);
  if (process.exitCode !== before.exitCode) found.push(`process.exitCode set to ${process.exitCode}`);
  const now = new Set(Reflect.ownKeys(globalThis));
  const added = [...now].filter((key) => !before.globals.has(key) && !LIBRARY_GLOBALS.has(key)).map(String);
  const removed = [...before.globals].filter((key) => !now.has(key)).map(String);
  if (added.length > 0) found.push(`globals added: ${added.join(', ')}`);
  if (removed.length > 0) found.push(`globals removed: ${removed.join(', ')}`);
  const replaced = CONSOLE_METHODS.filter((method) => console[method] !== before.console[method]);
  if (replaced.length > 0) found.push(`console methods replaced: ${replaced.join(', ')}`);
  const listening = EVENTS.filter((event, index) => process.listenerCount(event) !== before.listeners[index]);
  if (listening.length > 0) found.push(`process listeners changed: ${listening.join(', ')}`);
  if (vi.isFakeTimers()) found.push('fake timers still installed');
  for (const [name, target] of builtIns()) {
    for (const key of Reflect.ownKeys(target)) {
      const descriptor = Reflect.getOwnPropertyDescriptor(target, key);
      if (descriptor !== undefined && 'value' in descriptor && vi.isMockFunction(descriptor.value)) {
        found.push(`a mock left on ${name}.${String(key)}`);
      }
    }
  }
  if (options.handles === false) return found;
  for (const entry of liveTimers()) {
    if (!before.timers.has(entry)) found.push(`a timer left running, set ${entry.setAt}`);
  }
  const handles = lastingHandles();
  for (const [kind, count] of handles) {
    const extra = count - (before.handles.get(kind) ?? 0);
    if (extra > 0) found.push(`${extra} ${kind} left keeping the process alive`);
  }
  return found;
}
