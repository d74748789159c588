/**
 * An esbuild plugin that leaves out code the functions never run but their libraries import anyway:
 *
 * - zod's locale files. `zod/v4` (pulled in by the AI SDK) re-exports every locale through its `locales` namespace,
 *   so tree-shaking keeps about 258 KB of them; zod itself imports English directly (`locales/en.js`), which stays.
 *   Nothing of ours calls `z.config(z.locales.xx())`.
 * - `@ai-sdk/gateway`, the provider `ai` falls back to when a model is given as a string id. Every model here is a
 *   provider object (`createOpenAICompatible`), so the stub's `isInstance` checks (run on every error) answer false
 *   and any other use throws a clear error instead of calling Vercel's gateway.
 *
 * - zod's opt-in compiler (`z.compile`, `v4/core/compile.js`, 29 KB) and its JSON Schema importer (`z.fromJSONSchema`,
 *   `v4/classic/from-json-schema.js`, 12 KB): only zod's namespaces re-export them, nothing in zod calls them, and
 *   neither the AI SDK nor its providers do (they convert schemas the other way, `toJSONSchema`, which stays). Kept,
 *   they were parsed at every cold start of Diagnose: about 16 M instructions. Their stubs export the same names
 *   (checked against zod's files at every build); the two error classes and `INVALID` are the real ones' equals, the
 *   functions throw, naming why.
 * - zod's JSON Schema writer (`z.toJSONSchema`, `v4/core/to-json-schema.js` and `json-schema-processors.js`, 21 KB):
 *   zod's schemas import it for their `toJSONSchema()` and `~standard.jsonSchema` members, which build nothing until
 *   called, and the AI SDK calls it only to send a zod schema to a model (`zodSchema(…).jsonSchema`). Every schema
 *   this project sends is JSON Schema already (its tools are `jsonSchema(…)`, generated at build time); the AI SDK's and
 *   the provider's own zod schemas only parse. Kept, it was parsed at every cold start of Diagnose: about 4.5 M
 *   instructions. Its stub is written from the real files' export lists at every build, so the names always match;
 *   each throws, naming why (the two member factories return the function that throws).
 * - HTTP/2, in every function but the one client that uses it. `@smithy/node-http-handler`'s index exports both of its
 *   handlers, and only the Bedrock Agent Runtime client (Diagnose's `KNOWLEDGE_BACKEND=bedrock`, a dynamic import)
 *   takes `NodeHttp2Handler`. Through the one index the others share with it, esbuild puts the HTTP/2 handler into the
 *   chunk Diagnose's cold start loads with DynamoDB's handler, and its `import … from "node:http2"` loads Node's
 *   `http2`, `http` and `assert` at every cold start: about 9 M instructions (BENCHMARKS.md at bc6a21c). So every
 *   other importer gets the index without the HTTP/2 handler (the same modules otherwise), and the Bedrock client
 *   the whole index, in its own chunk.
 *
 * - A pattern's check at parse time, in `ai`: its tool-search `tokenize` holds the literal `/[\p{L}\p{N}]+/gu`, and V8
 *   checks every literal when it parses the file (even in a function that never runs), asking ICU for the letter and
 *   number sets: about 2.3 M instructions at every cold start of Diagnose. The literal becomes the same pattern built
 *   by `new RegExp` when the function runs (nothing here calls it: no tool search is configured).
 *
 * If a library starts importing another name from any of them, esbuild fails the build ("No matching export"): a stub
 * can never silently stand in for code that is used. If the handler package's index changes, the build fails too, and
 * so does it if `ai`'s file no longer holds that literal exactly once.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Plugin } from 'esbuild';

const NAMESPACE = 'unused-code';

const GATEWAY_STUB = `
const notInBuild = () => {
  throw new Error('@ai-sdk/gateway is not part of this build: pass a model object, not a model id string');
};
class NotInBuild {
  static isInstance() {
    return false;
  }
}
export const GatewayError = NotInBuild;
export const GatewayAuthenticationError = NotInBuild;
export const createGateway = notInBuild;
export const gateway = new Proxy(notInBuild, { get: notInBuild, apply: notInBuild });
`;

/** zod's modules this plugin stubs: the stub's source and the exports it must have, as zod's own file has them. */
const ZOD_STUBS: Record<string, { file: string; exports: readonly string[]; contents: string }> = {
  './compile.js': {
    file: 'compile.js',
    exports: ['INVALID', 'ZodCompileAsyncError', 'ZodCompileUnsupportedError', 'compile', 'withParser', 'compileFn'],
    contents: `
const notInBuild = () => {
  throw new Error('z.compile is not part of this build (scripts/unused-code-plugin.ts)');
};
export const INVALID = Symbol.for('zod.compile.invalid');
export class ZodCompileAsyncError extends Error {
  constructor(message = 'z.compile does not support async refinements, transforms, or checks') {
    super(message);
    this.name = 'ZodCompileAsyncError';
  }
}
export class ZodCompileUnsupportedError extends Error {
  constructor(feature, islandable = true) {
    super(\`z.compile does not support \${feature}; this schema must use the runtime parser\`);
    this.name = 'ZodCompileUnsupportedError';
    this.islandable = islandable;
  }
}
export const compile = notInBuild;
export const withParser = notInBuild;
export const compileFn = notInBuild;
`,
  },
  './from-json-schema.js': {
    file: 'from-json-schema.js',
    exports: ['fromJSONSchema'],
    contents: `
export const fromJSONSchema = () => {
  throw new Error('z.fromJSONSchema is not part of this build (scripts/unused-code-plugin.ts)');
};
`,
  },
};

/** The names `file` exports (`export const|let|class|function|async function NAME`, `export { a as NAME }`), as zod writes its modules. */
function exportedNames(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const declared = [...source.matchAll(/^export (?:const|let|class|function|async function) ([A-Za-z_$][\w$]*)/gm)];
  const renamed = [...source.matchAll(/^export \{ [A-Za-z_$][\w$]* as ([A-Za-z_$][\w$]*) \};$/gm)];
  return [...declared, ...renamed].map((match) => match[1] ?? '');
}

/**
 * zod's JSON Schema writer: `toJSONSchema` and the per-type processors it runs (see the module comment). Every export of
 * the real file is in the stub, so the names always match; each throws when called, but for the two factories zod
 * calls while it builds a schema's `~standard` and `toJSONSchema` members: they return the function that throws.
 */
const ZOD_JSON_SCHEMA_WRITER: Record<string, readonly string[]> = {
  'to-json-schema.js': ['createToJSONSchemaMethod', 'createStandardJSONSchemaMethod'],
  'json-schema-processors.js': [],
};

/** The stub of zod's JSON Schema writer file `real` (its factories: {@link ZOD_JSON_SCHEMA_WRITER}). */
function jsonSchemaWriterStub(real: string, factories: readonly string[]): string {
  const lines = [
    'const notInBuild = () => {',
    "  throw new Error('zod\\'s toJSONSchema is not part of this build (scripts/unused-code-plugin.ts)');",
    '};',
  ];
  for (const name of exportedNames(real)) {
    lines.push(`export const ${name} = ${factories.includes(name) ? '() => notInBuild' : 'notInBuild'};`);
  }
  return lines.join('\n');
}

/** `@smithy/node-http-handler`'s index as this plugin knows it: the HTTP/1.1 part is re-exported, the rest left out. */
export const NODE_HTTP_HANDLER_INDEX = [
  'export { DEFAULT_REQUEST_TIMEOUT, NodeHttpHandler } from "./node-http-handler";',
  'export { NodeHttp2Handler } from "./node-http2-handler";',
  'export { streamCollector } from "@smithy/core/serde";',
].join('\n');

/** The index without its HTTP/2 handler, for the package's `dist-es` folder `folder` (see the module comment). */
function http1Index(folder: string): string {
  const index = readFileSync(join(folder, 'index.js'), 'utf8').trim();
  if (index !== NODE_HTTP_HANDLER_INDEX) {
    throw new Error(`${join(folder, 'index.js')} changed: review scripts/unused-code-plugin.ts for the new exports`);
  }
  return index
    .split('\n')
    .filter((line) => !line.includes('NodeHttp2Handler'))
    .join('\n');
}

/** Importers of `@smithy/node-http-handler` that take its HTTP/2 handler. */
const HTTP2_IMPORTERS = /[\\/]node_modules[\\/]@aws-sdk[\\/]client-bedrock-agent-runtime[\\/]/;

/** The literal of `ai`'s `tokenize`, and the same pattern built when it runs (see the module comment). */
export const AI_TOKENIZE_LITERAL = '.match(/[\\p{L}\\p{N}]+/gu)';
const AI_TOKENIZE_BUILT = `.match(new RegExp(${JSON.stringify('[\\p{L}\\p{N}]+')}, 'gu'))`;

/** `ai`'s file `path` with {@link AI_TOKENIZE_LITERAL} built at run time; an error unless it holds it exactly once. */
export function withTokenizeBuiltLate(path: string): { contents: string } | { errors: { text: string }[] } {
  const source = readFileSync(path, 'utf8');
  const parts = source.split(AI_TOKENIZE_LITERAL);
  if (parts.length !== 2) {
    return {
      errors: [{ text: `${path} no longer holds ${AI_TOKENIZE_LITERAL} once: review scripts/unused-code-plugin.ts` }],
    };
  }
  return { contents: parts.join(AI_TOKENIZE_BUILT) };
}

/** How the provider imports zod, and the same names imported as a namespace esbuild can see through. */
export const PROVIDER_ZOD_IMPORT = 'import { z } from "zod/v4";';
const PROVIDER_ZOD_NAMESPACE = 'import * as z from "zod/v4";';

/** The provider's file `path` importing zod as a namespace; an error unless it holds {@link PROVIDER_ZOD_IMPORT} once. */
export function withZodNamespaceImport(path: string): { contents: string } | { errors: { text: string }[] } {
  const source = readFileSync(path, 'utf8');
  const parts = source.split(PROVIDER_ZOD_IMPORT);
  if (parts.length !== 2) {
    return {
      errors: [{ text: `${path} no longer holds ${PROVIDER_ZOD_IMPORT} once: review scripts/unused-code-plugin.ts` }],
    };
  }
  return { contents: parts.join(PROVIDER_ZOD_NAMESPACE) };
}

/** Stubs zod's locale index, compiler, JSON Schema importer and writer and `@ai-sdk/gateway`; keeps HTTP/2 to its one client. */
export function unusedCodePlugin(): Plugin {
  return {
    name: NAMESPACE,
    setup(build) {
      build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
        /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
          ? { path: 'zod-locales', namespace: NAMESPACE }
          : undefined,
      );
      build.onResolve({ filter: /^@ai-sdk\/gateway$/ }, () => ({ path: 'ai-sdk-gateway', namespace: NAMESPACE }));
      build.onResolve({ filter: /^\.\/(compile|from-json-schema)\.js$/ }, (args) => {
        if (!/[\\/]node_modules[\\/]zod[\\/]v4[\\/](core|classic)[\\/]/.test(args.importer)) return undefined;
        const stub = ZOD_STUBS[args.path];
        if (stub === undefined) return undefined;
        const real = join(args.resolveDir, stub.file);
        const names = exportedNames(real).sort();
        if (names.join() !== [...stub.exports].sort().join()) {
          return {
            errors: [{ text: `${real} exports ${names.join(', ')}: review its stub in scripts/unused-code-plugin.ts` }],
          };
        }
        return { path: `zod-stub:${args.path}`, namespace: NAMESPACE };
      });
      build.onResolve({ filter: /^(\.\/|\.\.\/core\/)(to-json-schema|json-schema-processors)\.js$/ }, (args) => {
        if (!/[\\/]node_modules[\\/]zod[\\/]v4[\\/](core|classic|mini)[\\/]/.test(args.importer)) return undefined;
        const file = basename(args.path);
        if (ZOD_JSON_SCHEMA_WRITER[file] === undefined) return undefined;
        // NOTE: named by the file alone, so zod's two paths to it (from core/ and from classic/ or mini/) are one module.
        return { path: `zod-json-schema:${file}`, namespace: NAMESPACE, pluginData: join(args.resolveDir, args.path) };
      });
      build.onResolve({ filter: /^@smithy\/node-http-handler$/ }, async (args) => {
        if (args.pluginData === NAMESPACE || HTTP2_IMPORTERS.test(args.importer)) return undefined;
        // NOTE: the package this importer resolves to (one copy or another), through esbuild's own resolution.
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: NAMESPACE,
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        return { path: `node-http-handler-http1:${dirname(resolved.path)}`, namespace: NAMESPACE };
      });
      build.onLoad(
        { filter: /[\\/]node_modules[\\/]@ai-sdk[\\/]openai-compatible[\\/]dist[\\/]index\.js$/ },
        (args) => {
          const loaded = withZodNamespaceImport(args.path);
          return 'errors' in loaded ? loaded : { contents: loaded.contents, loader: 'js' };
        },
      );
      build.onLoad({ filter: /[\\/]node_modules[\\/]ai[\\/]dist[\\/](internal[\\/])?index\.js$/ }, (args) => {
        const loaded = withTokenizeBuiltLate(args.path);
        return 'errors' in loaded ? loaded : { contents: loaded.contents, loader: 'js' };
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
        if (args.path.startsWith('node-http-handler-http1:')) {
          const folder = args.path.slice('node-http-handler-http1:'.length);
          return { contents: http1Index(folder), loader: 'js', resolveDir: folder };
        }
        if (args.path.startsWith('zod-json-schema:')) {
          const file = args.path.slice('zod-json-schema:'.length);
          return {
            contents: jsonSchemaWriterStub(args.pluginData as string, ZOD_JSON_SCHEMA_WRITER[file] ?? []),
            loader: 'js',
          };
        }
        const zodStub = args.path.startsWith('zod-stub:') ? ZOD_STUBS[args.path.slice('zod-stub:'.length)] : undefined;
        if (zodStub !== undefined) return { contents: zodStub.contents, loader: 'js' };
        return { contents: args.path === 'ai-sdk-gateway' ? GATEWAY_STUB : 'export {};', loader: 'js' };
      });
    },
  };
}
