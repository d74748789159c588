/**
 * `npm run build:functions` is what `sst deploy` ships (sst.config.ts gives every function its folder through
 * `functionCode`): one handler per function of sst.config.ts, and none of the code the unused-code plugin drops.
 * NOTE: over 300 lines on purpose: one build of every function, made once (the slow part) and checked for what each
 * one ships.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFunctions, lambdaBuildOptions } from '../../scripts/build-functions.ts';
import { handlerFileOf, LAMBDA_FUNCTIONS, type LambdaFunctionName } from '../../scripts/lambda-functions.ts';
import {
  AI_TOKENIZE_LITERAL,
  NODE_HTTP_HANDLER_INDEX,
  PROVIDER_ZOD_IMPORT,
  withTokenizeBuiltLate,
  withZodNamespaceImport,
} from '../../scripts/unused-code-plugin.ts';
import { readDeploymentSource } from '../support/deployment-source.ts';

const config = readDeploymentSource();

/** The names of the functions sst.config.ts creates: directly, or through a helper that passes on its `name`. */
function functionsOfConfig(): string[] {
  const direct = [...config.matchAll(/new sst\.aws\.Function\('(\w+)'/g)].map((match) => match[1] ?? '');
  const helpers = [...config.matchAll(/const (\w+) = \(\s*name\b[^=]*\)\s*=>\s*new sst\.aws\.Function\(name,/g)].map(
    (match) => match[1] ?? '',
  );
  const viaHelpers = helpers.flatMap((helper) =>
    [...config.matchAll(new RegExp(`\\b${helper}\\('(\\w+)'`, 'g'))].map((match) => match[1] ?? ''),
  );
  // NOTE: every `new sst.aws.Function(` is one of those two kinds, or a function could escape this test.
  expect(config.match(/new sst\.aws\.Function\(/g)?.length).toBe(direct.length + helpers.length);
  return [...direct, ...viaHelpers].sort();
}

const names = Object.keys(LAMBDA_FUNCTIONS) as LambdaFunctionName[];
const temp = mkdtempSync(join(tmpdir(), 'build-functions-'));
let metafiles: Record<LambdaFunctionName, Metafile>;

/** The inputs of `name` with code in its outputs (any chunk, a dynamic import's included): what it ships. */
function includedInputs(name: LambdaFunctionName): string[] {
  return Object.values(metafiles[name].outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path),
  );
}

/** The entry of `name` and every chunk it imports statically: what a cold start loads before any dynamic import. */
function eagerOutputs(name: LambdaFunctionName): Metafile['outputs'][string][] {
  const { outputs } = metafiles[name];
  const entry = Object.keys(outputs).find((output) => outputs[output]?.entryPoint === LAMBDA_FUNCTIONS[name]);
  const eager = new Set<string>();
  const visit = (output: string) => {
    if (eager.has(output)) return;
    eager.add(output);
    for (const imported of outputs[output]?.imports ?? []) {
      if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
    }
  };
  if (entry !== undefined) visit(entry);
  return [...eager].flatMap((output) => outputs[output] ?? []);
}

// NOTE: a generous limit for seven esbuild builds on a loaded machine; this is no timing assertion.
beforeAll(async () => {
  metafiles = await buildFunctions(join(temp, 'functions'), join(temp, 'meta'));
}, 120_000);
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe('buildFunctions', () => {
  it('builds exactly the functions sst.config.ts deploys, each a handler at the root of its own folder', () => {
    expect(functionsOfConfig()).toEqual([...names].sort());
    for (const name of names) {
      const handler = join(temp, 'functions', name, handlerFileOf(name));
      expect(existsSync(handler), handler).toBe(true);
      expect(readFileSync(handler, 'utf8')).toMatch(
        /export\s*\{[^}]*\bas handler\b[^}]*\}|export\s*\{[^}]*\bhandler\b/,
      );
    }
  });

  it('is the only code sst.config.ts deploys: no handler path or SST build options of its own', () => {
    expect(config).not.toMatch(/\bhandler:/);
    expect(config).not.toMatch(/\bnodejs:/);
    expect(config.match(/\.\.\.functionCode\(/g)?.length).toBe(config.match(/new sst\.aws\.Function\(/g)?.length);
  });

  it('leaves zod’s locale files (English aside) and the AI Gateway provider out of every function', () => {
    for (const name of names) {
      const included = includedInputs(name);
      expect(included.filter((path) => /node_modules\/zod\/v4\/locales\/(?!en\.js$)/.test(path))).toEqual([]);
      expect(included.filter((path) => path.includes('node_modules/@ai-sdk/gateway/'))).toEqual([]);
    }
    const diagnose = join(temp, 'functions', 'Diagnose');
    const code = readdirSync(diagnose, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.mjs'))
      .map((file) => readFileSync(join(diagnose, file), 'utf8'))
      .join('');
    // German is one of the dropped locales: its text is in a build without the plugin.
    expect(code).not.toContain('Ungültige Eingabe');
    expect(code).toContain('deepseek');
  });

  it('keeps the model stack (the AI SDK, its providers, zod) out of every function but Diagnose (issue 19)', () => {
    // NOTE: every output counts, chunks of a dynamic import included: whatever a function can reach is shipped.
    const modelStack = /node_modules\/(ai|@ai-sdk\/[^/]+|zod)\//;
    for (const name of names.filter((candidate) => candidate !== 'Diagnose')) {
      const included = includedInputs(name);
      const packages = [...new Set(included.map((path) => modelStack.exec(path)?.[1]).filter(Boolean))].sort();
      expect(packages, name).toEqual([]);
    }
    const diagnose = Object.values(metafiles.Diagnose.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(diagnose.some((path) => modelStack.test(path))).toBe(true);
  });

  it('loads RE2JS in no function at cold start; Diagnose ships it in a chunk it imports only for a stage’s patterns (issue 25)', () => {
    for (const name of names) {
      const eager = eagerOutputs(name);
      expect(eager.length, name).toBeGreaterThan(0);
      const loaded = eager.flatMap((output) => Object.keys(output.inputs));
      expect(
        loaded.filter((path) => path.includes('node_modules/re2js/')),
        name,
      ).toEqual([]);
    }
    const shipped = Object.values(metafiles.Diagnose.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(shipped.some((path) => path.includes('node_modules/re2js/'))).toBe(true);
  });

  it('ships no JSON Schema converter in any function: the schemas it sends are generated at build time (issue 25)', () => {
    for (const name of names) {
      const shipped = Object.values(metafiles[name].outputs).flatMap((output) => Object.keys(output.inputs));
      expect(
        shipped.filter((path) => /node_modules\/@valibot\/to-json-schema\/|\/derive-[a-z-]+\.ts$/.test(path)),
        name,
      ).toEqual([]);
      expect(shipped.length, name).toBeGreaterThan(0);
    }
    const diagnose = Object.values(metafiles.Diagnose.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(diagnose).toContain('packages/core/src/tools/tool-json-schemas.ts');
    expect(diagnose).toContain('packages/core/src/draft/diagnosis-draft-json-schema.ts');
  });

  it('loads HTTP/2 and net’s namespace in no function at cold start; Diagnose’s Bedrock client keeps HTTP/2 (issue 25)', () => {
    for (const name of names) {
      const eager = eagerOutputs(name);
      expect(eager.length, name).toBeGreaterThan(0);
      const inputs = eager.flatMap((output) => Object.keys(output.inputs));
      expect(
        inputs.filter((path) => /node_modules\/@smithy\/node-http-handler\/dist-es\/.*http2/.test(path)),
        name,
      ).toEqual([]);
      const builtins = eager.flatMap((output) => output.imports.map((imported) => imported.path));
      expect(
        builtins.filter((path) => /^(node:)?http2$/.test(path)),
        name,
      ).toEqual([]);
      // NOTE: nor `net` as a module namespace: Node would read all its exports, BlockList and SocketAddress included.
      expect(
        builtins.filter((path) => /^(node:)?net$/.test(path)),
        name,
      ).toEqual([]);
    }
    // DynamoDB's handler is still there, and the whole handler package ships with Diagnose's Bedrock chunk.
    const diagnoseEager = eagerOutputs('Diagnose').flatMap((output) => Object.keys(output.inputs));
    expect(diagnoseEager).toContain('node_modules/@smithy/node-http-handler/dist-es/node-http-handler.js');
    const shipped = Object.values(metafiles.Diagnose.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(shipped).toContain('node_modules/@smithy/node-http-handler/dist-es/node-http2-handler.js');
    expect(readFileSync('node_modules/@smithy/node-http-handler/dist-es/index.js', 'utf8').trim()).toBe(
      NODE_HTTP_HANDLER_INDEX,
    );
  });

  it('builds no settings schema Diagnose never parses: the trigger and feedback ones, with the trigger mappings (issue 25)', () => {
    expect(includedInputs('Diagnose').filter((path) => path.startsWith('packages/core/src/trigger/'))).toEqual([]);
    // The functions that parse them still have them.
    expect(includedInputs('Trigger')).toContain('packages/core/src/trigger/trigger-mappings.ts');
  });

  it('gives the Bedrock client its HTTP/2 handler and every other client the HTTP/1.1 one, as without the plugin', async () => {
    const entry = join(temp, 'http-handler-probe.ts');
    writeFileSync(
      entry,
      [
        "import { BedrockAgentRuntimeClient } from '@aws-sdk/client-bedrock-agent-runtime';",
        "import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';",
        "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
        "const options = { region: 'eu-west-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } };",
        'const handlerOf = (client: { config: { requestHandler: unknown } }) => client.config.requestHandler;',
        'export const bedrock = handlerOf(new BedrockAgentRuntimeClient(options));',
        'export const cloudwatch = handlerOf(new CloudWatchLogsClient(options));',
        'export const dynamo = handlerOf(new DynamoDBClient(options));',
      ].join('\n'),
    );
    // NOTE: the probe is outside the repository, so its packages resolve from the repository's node_modules.
    const nodePaths = [join(process.cwd(), 'node_modules')];
    await build({ ...lambdaBuildOptions(entry, join(temp, 'http-probe')), absWorkingDir: process.cwd(), nodePaths });
    const probe = await import(pathToFileURL(join(temp, 'http-probe', 'http-handler-probe.mjs')).href);
    // NOTE: the bundle's own classes, told apart by their own fields: the HTTP/2 handler's connection manager, the
    // HTTP/1.1 handler's socket warning clock (the probe's answers differ, so neither check is vacuous).
    const kind = (handler: object) =>
      'connectionManager' in handler ? 'http2' : 'socketWarningTimestamp' in handler ? 'http1' : 'unknown';
    expect(kind(probe.bedrock)).toBe('http2');
    expect(kind(probe.cloudwatch)).toBe('http1');
    expect(kind(probe.dynamo)).toBe('http1');
  });

  it('fails the build when code other than the Bedrock client takes the HTTP/2 handler', async () => {
    const entry = join(temp, 'http2-elsewhere.ts');
    writeFileSync(
      entry,
      "import { NodeHttp2Handler } from '@smithy/node-http-handler';\nexport const handler = new NodeHttp2Handler();\n",
    );
    await expect(
      build({
        ...lambdaBuildOptions(entry, join(temp, 'http2-elsewhere')),
        absWorkingDir: process.cwd(),
        nodePaths: [join(process.cwd(), 'node_modules')],
        logLevel: 'silent',
      }),
    ).rejects.toThrow(/No matching export.*NodeHttp2Handler/s);
  });

  it('ships zod’s compiler and JSON Schema importer in no function; they throw, naming why, and zod parses as before', async () => {
    for (const name of names) {
      const included = includedInputs(name);
      expect(
        included.filter((path) => /node_modules\/zod\/v4\/(core\/compile|classic\/from-json-schema)\.js$/.test(path)),
        name,
      ).toEqual([]);
    }
    const entry = join(temp, 'zod-probe.ts');
    writeFileSync(entry, "export { z } from 'zod/v4';\n");
    const nodePaths = [join(process.cwd(), 'node_modules')];
    await build({ ...lambdaBuildOptions(entry, join(temp, 'zod-probe')), absWorkingDir: process.cwd(), nodePaths });
    const { z } = await import(pathToFileURL(join(temp, 'zod-probe', 'zod-probe.mjs')).href);
    expect(() => z.compile(z.string())).toThrow('z.compile is not part of this build');
    expect(() => z.fromJSONSchema({ type: 'string' })).toThrow('z.fromJSONSchema is not part of this build');
    expect(z.INVALID).toBe(Symbol.for('zod.compile.invalid'));
    expect(new z.ZodCompileAsyncError()).toMatchObject({ name: 'ZodCompileAsyncError' });
    const schema = z.object({ id: z.string().min(2), count: z.number().int() });
    expect(schema.parse({ id: 'ab', count: 3 })).toEqual({ id: 'ab', count: 3 });
    expect(schema.safeParse({ id: 'a', count: 3 }).success).toBe(false);
    // Its standard-schema face, which the AI SDK reads, validates as before.
    expect(await schema['~standard'].validate({ id: 'ab', count: 3 })).toEqual({ value: { id: 'ab', count: 3 } });
  });

  it('ships zod’s JSON Schema writer in no function: it throws, naming why, and zod’s schemas build and parse as before', async () => {
    for (const name of names) {
      expect(
        includedInputs(name).filter((path) =>
          /node_modules\/zod\/v4\/core\/(to-json-schema|json-schema-processors)\.js$/.test(path),
        ),
        name,
      ).toEqual([]);
    }
    const entry = join(temp, 'zod-writer-probe.ts');
    writeFileSync(entry, "export { z } from 'zod/v4';\nexport * as mini from 'zod/v4/mini';\n");
    const nodePaths = [join(process.cwd(), 'node_modules')];
    await build({
      ...lambdaBuildOptions(entry, join(temp, 'zod-writer-probe')),
      absWorkingDir: process.cwd(),
      nodePaths,
    });
    const { z, mini } = await import(pathToFileURL(join(temp, 'zod-writer-probe', 'zod-writer-probe.mjs')).href);
    const schema = z.object({ id: z.string().min(2), tags: z.array(z.enum(['a', 'b'])).optional() });
    const notInBuild = "zod's toJSONSchema is not part of this build";
    expect(() => z.toJSONSchema(schema)).toThrow(notInBuild);
    expect(() => mini.toJSONSchema(mini.string())).toThrow(notInBuild);
    expect(() => schema.toJSONSchema()).toThrow(notInBuild);
    expect(() => schema['~standard'].jsonSchema.input({ target: 'draft-07' })).toThrow(notInBuild);
    expect(schema.parse({ id: 'ab', tags: ['a'] })).toEqual({ id: 'ab', tags: ['a'] });
    expect(schema.safeParse({ id: 'ab', tags: ['c'] }).success).toBe(false);
    expect(await schema['~standard'].validate({ id: 'a' })).toMatchObject({ issues: [{ path: ['id'] }] });
  });

  it('fails the build when zod’s compiler exports a name its stub does not have', async () => {
    // NOTE: a zod of its own in a folder of this test: its compiler has one export more than the one the stub knows.
    const fake = join(temp, 'fake-zod', 'node_modules', 'zod', 'v4', 'core');
    mkdirSync(fake, { recursive: true });
    writeFileSync(join(fake, 'index.js'), "export * from './compile.js';\n");
    writeFileSync(
      join(fake, 'compile.js'),
      [
        'export const INVALID = Symbol.for("zod.compile.invalid");',
        'export class ZodCompileAsyncError extends Error {}',
        'export class ZodCompileUnsupportedError extends Error {}',
        'export function compile() {}',
        'export function withParser() {}',
        'export function compileFn() {}',
        'export function compileAll() {}',
      ].join('\n'),
    );
    const entry = join(temp, 'fake-zod', 'entry.ts');
    writeFileSync(entry, "export * from './node_modules/zod/v4/core/index.js';\n");
    await expect(
      build({
        ...lambdaBuildOptions(entry, join(temp, 'fake-zod', 'out')),
        absWorkingDir: process.cwd(),
        logLevel: 'silent',
      }),
    ).rejects.toThrow(/compile\.js exports .*compileAll.*review its stub/s);
  });

  it('ships no pattern literal with a Unicode property (`\\p{…}`) in any function: V8 would ask ICU for its set at parse', () => {
    // NOTE: a literal's `\p` has one backslash in the minified code; a string given to `new RegExp` has two.
    const literal = /(?<!\\)\\p\{/;
    for (const name of names) {
      const folder = join(temp, 'functions', name);
      const files = readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.mjs'));
      expect(files.length, name).toBeGreaterThan(0);
      for (const file of files)
        expect(literal.test(readFileSync(join(folder, file), 'utf8')), `${name}/${file}`).toBe(false);
    }
    // The probe finds one: valibot's emoji pattern, which the build leaves out when unused, is one in valibot's file.
    expect(literal.test(readFileSync('node_modules/valibot/dist/index.mjs', 'utf8'))).toBe(true);
  });

  it('builds the AI SDK’s tokenize pattern when it runs, matching as the literal did; fails the build if it moved', async () => {
    const module = join(temp, 'tokenize.mjs');
    writeFileSync(module, `export const tokenize = (text) => text.toLowerCase()${AI_TOKENIZE_LITERAL} ?? [];\n`);
    const built = withTokenizeBuiltLate(module);
    if ('errors' in built) throw new Error(built.errors[0]?.text);
    expect(built.contents).not.toContain(AI_TOKENIZE_LITERAL);
    const late = join(temp, 'tokenize-late.mjs');
    writeFileSync(late, built.contents);
    const text = 'Query_logs for E1001: 订单失败 ١٢٣ café-42';
    const [before, after] = await Promise.all([import(pathToFileURL(module).href), import(pathToFileURL(late).href)]);
    expect(after.tokenize(text)).toEqual(before.tokenize(text));
    expect(after.tokenize(text)).toEqual(['query', 'logs', 'for', 'e1001', '订单失败', '١٢٣', 'café', '42']);
    writeFileSync(module, `${AI_TOKENIZE_LITERAL}${AI_TOKENIZE_LITERAL}`);
    expect(withTokenizeBuiltLate(module)).toEqual({ errors: [{ text: expect.stringMatching(/no longer holds/) }] });
    writeFileSync(module, 'export {};');
    expect(withTokenizeBuiltLate(module)).toEqual({ errors: [{ text: expect.stringMatching(/no longer holds/) }] });
    // And the real `ai` holds it exactly once, in both files the build takes.
    for (const file of ['node_modules/ai/dist/index.js', 'node_modules/ai/dist/internal/index.js']) {
      expect(withTokenizeBuiltLate(file)).not.toHaveProperty('errors');
    }
  });

  it('imports zod into the provider as a namespace esbuild sees through: only the zod it uses ships; fails the build if it moved', async () => {
    // The provider's `import { z }` of zod's namespace object kept every export of zod's classic API (its namespace
    // object built at cold start); as `import * as z` only the members it reads are bundled.
    const diagnose = eagerOutputs('Diagnose').flatMap((output) => Object.entries(output.inputs));
    const zodBytes = diagnose
      .filter(([path]) => /node_modules\/zod\//.test(path))
      .reduce((sum, [, input]) => sum + input.bytesInOutput, 0);
    expect(zodBytes).toBeLessThan(100_000);
    expect(diagnose.filter(([path]) => /node_modules\/zod\/v4\/classic\/(iso|coerce)\.js$/.test(path))).toEqual([]);
    // Same names, same values: the namespace the provider now reads is the one its `z` was.
    const real = 'node_modules/@ai-sdk/openai-compatible/dist/index.js';
    const rewritten = withZodNamespaceImport(real);
    if ('errors' in rewritten) throw new Error(rewritten.errors[0]?.text);
    expect(rewritten.contents).not.toContain(PROVIDER_ZOD_IMPORT);
    expect(rewritten.contents).toBe(
      readFileSync(real, 'utf8').replace(PROVIDER_ZOD_IMPORT, 'import * as z from "zod/v4";'),
    );
    const zod = await import('zod/v4');
    for (const name of Object.keys(zod.z))
      expect(zod[name as keyof typeof zod], name).toBe(zod.z[name as keyof typeof zod.z]);
    const module = join(temp, 'provider.mjs');
    writeFileSync(module, `${PROVIDER_ZOD_IMPORT}${PROVIDER_ZOD_IMPORT}`);
    expect(withZodNamespaceImport(module)).toEqual({ errors: [{ text: expect.stringMatching(/no longer holds/) }] });
    writeFileSync(module, 'export {};');
    expect(withZodNamespaceImport(module)).toEqual({ errors: [{ text: expect.stringMatching(/no longer holds/) }] });
  });

  it('answers the AI SDK’s gateway checks with false and refuses any use of the gateway, naming why', async () => {
    const entry = join(temp, 'gateway-probe.ts');
    writeFileSync(
      entry,
      "export { GatewayAuthenticationError, GatewayError, createGateway, gateway } from '@ai-sdk/gateway';\n",
    );
    await build({ ...lambdaBuildOptions(entry, join(temp, 'probe')), absWorkingDir: process.cwd() });
    const probe = await import(pathToFileURL(join(temp, 'probe', 'gateway-probe.mjs')).href);
    expect(probe.GatewayAuthenticationError.isInstance(new Error('x'))).toBe(false);
    expect(probe.GatewayError.isInstance(new Error('x'))).toBe(false);
    expect(() => probe.createGateway()).toThrow('@ai-sdk/gateway is not part of this build');
    expect(() => probe.gateway.languageModel('m')).toThrow('@ai-sdk/gateway is not part of this build');
  });
});
