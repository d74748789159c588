/**
 * What the `diagnosis` bin loads before a command does its work: the help, and every usage error, must not load the
 * model stack or an AWS SDK (about 0.2 s of CPU: BENCHMARKS.md at 58c5cc5). Every command module is loaded
 * at start, so one of them importing a package's index (the core's loads the AI SDK) slows every command, `--help`
 * included — a regression this test caught.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { runBin } from '../../support/cli-process.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'cli-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A module resolution hook that lists every module the process loads, one URL a line, on stderr.
const hook = join(dir, 'list-modules.mjs');
writeFileSync(
  hook,
  `import { registerHooks } from 'node:module';
registerHooks({ resolve(specifier, context, next) { const resolved = next(specifier, context);
  process.stderr.write('loaded ' + resolved.url + '\\n'); return resolved; } });
`,
);

async function modulesLoadedBy(args: string[]): Promise<string[]> {
  const { stderr } = await runBin(args, {}, { nodeArguments: ['--import', pathToFileURL(hook).href] });
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('loaded '))
    .map((line) => line.slice('loaded '.length));
}

const HEAVY = /\/node_modules\/(ai|zod|@ai-sdk\/[^/]+|@aws-sdk\/[^/]+|mysql2|@middy\/core)\//;

describe('the diagnosis bin at start', () => {
  it.each([[['--help']], [['trace', '--help']], [['runs', '--limit', 'many']]])(
    'loads no model stack and no AWS SDK for %j',
    async (args) => {
      const loaded = await modulesLoadedBy(args);
      expect(loaded.length).toBeGreaterThan(10);
      expect(loaded.filter((url) => HEAVY.test(url))).toEqual([]);
    },
  );
});

describe('a read command of the bin on a given DynamoDB', () => {
  it('loads the DynamoDB client but no model stack, no MySQL driver and no devkit for `runs`', async () => {
    const table = `cli-startup-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const { code: status, stderr } = await runBin(
      ['runs'],
      { DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'), DIAGNOSIS_TABLE_NAME: table },
      { nodeArguments: ['--import', pathToFileURL(hook).href] },
    );
    expect(status, stderr.replace(/^loaded .+\n/gm, '')).toBe(0);
    const loaded = stderr
      .split('\n')
      .filter((line) => line.startsWith('loaded '))
      .map((line) => line.slice(7));
    expect(loaded.some((url) => url.includes('/node_modules/@aws-sdk/client-dynamodb/'))).toBe(true);
    const modelStack = /\/node_modules\/(ai|zod|@ai-sdk\/[^/]+|mysql2|@middy\/core)\/|\/packages\/devkit\//;
    expect(loaded.filter((url) => modelStack.test(url))).toEqual([]);
  });
});

describe('the compile cache of the bin', () => {
  // At exit, the child says which compile cache folder its Node used (none: "off").
  const probe = join(dir, 'cache-probe.mjs');
  writeFileSync(
    probe,
    `import { getCompileCacheDir } from 'node:module';
process.on('exit', () => process.stderr.write('cache ' + (getCompileCacheDir() ?? 'off') + '\\n'));
`,
  );
  const run = async (env: Record<string, string>) => {
    const child = await runBin(['runs', '--limit', 'many'], env, {
      nodeArguments: ['--import', pathToFileURL(probe).href],
    });
    const folder = /^cache (.+)$/m.exec(child.stderr)?.[1];
    return { status: child.code, folder, message: child.stderr.replace(/^cache .+\n/m, '') };
  };

  it("turns Node's compile cache on in the project's node_modules/.cache, and the command runs the same", async () => {
    const first = await run({});
    const second = await run({});
    // NOTE: Node keeps its entries in a folder of its version under the one given.
    expect(first.folder?.startsWith(`${join(ROOT, 'node_modules/.cache/diagnosis-compile-cache')}/`)).toBe(true);
    expect(readdirSync(first.folder ?? '', { recursive: true }).length).toBeGreaterThan(0);
    expect([first.status, second.status]).toEqual([64, 64]);
    expect(second.message).toBe(first.message);
    expect(second.message).toMatch(/^diagnosis runs: /);
  });

  it('keeps it where NODE_COMPILE_CACHE says, and writes none with NODE_DISABLE_COMPILE_CACHE=1', async () => {
    const cache = mkdtempSync(join(dir, 'cache-'));
    expect((await run({ NODE_COMPILE_CACHE: cache })).folder?.startsWith(`${cache}/`)).toBe(true);
    expect(readdirSync(cache, { recursive: true }).length).toBeGreaterThan(0);
    const off = mkdtempSync(join(dir, 'off-'));
    expect(await run({ NODE_COMPILE_CACHE: off, NODE_DISABLE_COMPILE_CACHE: '1' })).toMatchObject({
      status: 64,
      folder: 'off',
    });
    expect(readdirSync(off)).toEqual([]);
  });
});
