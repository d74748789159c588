/**
 * `npm run build:functions`: builds every Lambda of sst.config.ts with esbuild into `.data/build/functions/<Name>/`, the
 * folders SST deploys as they are (its `bundle` option; sst.config.ts runs this script first). One build, so the
 * benchmarks measure exactly what is deployed; metafiles go to `.data/build/meta/` (not shipped).
 *
 * The options are SST 4's own for an ESM function (`mainFields: ['module','main']`, the `createRequire` banner,
 * minified, code splitting), with these differences, each measured by callgrind (in BENCHMARKS.md's history:
 * `git log -p BENCHMARKS.md`):
 * - the unused-code plugin (zod locales, `@ai-sdk/gateway`), which SST's build cannot take (`nodejs.plugins` is
 *   internal and undocumented);
 * - `keepNames: false`: nothing reads a function's or class's `name` (every error class of ours names itself with a
 *   literal, and so do the AWS SDK's and the AI SDK's), and keeping names costs start-up work in every module;
 * - `target: 'node24'` (the runtime) instead of `esnext`, with Unicode property escapes marked as supported;
 * - no source maps: none are shipped, so the functions run without `--enable-source-maps` (and stack traces never
 *   reach a log line or a caller anyway).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { FUNCTIONS_OUT_DIR, LAMBDA_FUNCTIONS, type LambdaFunctionName } from './lambda-functions.ts';
import { unusedCodePlugin } from './unused-code-plugin.ts';

/** SST 4's banner for ESM functions: CommonJS code inside ESM packages (`@vercel/oidc` in `ai`) needs `require`. */
const BANNER = [
  "import { createRequire as topLevelCreateRequire } from 'module';",
  'const require = topLevelCreateRequire(import.meta.url);',
  "import { fileURLToPath as topLevelFileUrlToPath, URL as topLevelURL } from 'url';",
  'const __filename = topLevelFileUrlToPath(import.meta.url);',
  "const __dirname = topLevelFileUrlToPath(new topLevelURL('.', import.meta.url));",
].join('\n');

/** The esbuild options of every deployed function (and of the benchmarks' bare baseline handler). */
export function lambdaBuildOptions(entry: string, outdir: string): BuildOptions {
  return {
    entryPoints: [entry],
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    // NOTE: esbuild (since 0.19.4) writes a top-level pattern with a `\p{…}` as `new RegExp("…")` for a `node` target,
    // which it can never leave out: valibot's unused `EMOJI_REGEX` was built, asking ICU for four Unicode sets, at
    // every cold start of every function that bundles valibot (≈ 0.6 M instructions, BENCHMARKS.md at 7339a50). Node 24
    // (the runtime) has every property these patterns name, so they stay literals and an unused one is left out.
    supported: { 'regexp-unicode-property-escapes': true },
    mainFields: ['module', 'main'],
    minify: true,
    keepNames: false,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    banner: { js: BANNER },
    sourcemap: false,
    metafile: true,
    logLevel: 'warning',
    plugins: [unusedCodePlugin()],
  };
}

/** Builds one entry point into `outdir` (emptied first). */
export async function buildLambda(entry: string, outdir: string): Promise<Metafile> {
  rmSync(outdir, { recursive: true, force: true });
  const { metafile } = await build(lambdaBuildOptions(entry, outdir));
  if (metafile === undefined) throw new Error('esbuild wrote no metafile');
  return metafile;
}

/** Builds every function of sst.config.ts into `<outDir>/<Name>/`; returns each one's metafile. */
export async function buildFunctions(
  outDir: string = FUNCTIONS_OUT_DIR,
  metaDir: string = join(outDir, '..', 'meta'),
): Promise<Record<LambdaFunctionName, Metafile>> {
  rmSync(outDir, { recursive: true, force: true });
  rmSync(metaDir, { recursive: true, force: true });
  mkdirSync(metaDir, { recursive: true });
  const names = Object.keys(LAMBDA_FUNCTIONS) as LambdaFunctionName[];
  const metafiles = await Promise.all(names.map((name) => buildLambda(LAMBDA_FUNCTIONS[name], join(outDir, name))));
  const byName = Object.fromEntries(names.map((name, index) => [name, metafiles[index]])) as Record<
    LambdaFunctionName,
    Metafile
  >;
  for (const name of names) writeFileSync(join(metaDir, `${name}.json`), JSON.stringify(byName[name]));
  return byName;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const metafiles = await buildFunctions();
  for (const [name, metafile] of Object.entries(metafiles)) {
    const outputs = Object.entries(metafile.outputs);
    const bytes = outputs.reduce((sum, [, output]) => sum + output.bytes, 0);
    console.log(
      `${name.padEnd(18)} ${String(outputs.length).padStart(2)} files ${(bytes / 1024).toFixed(0).padStart(6)} KB`,
    );
  }
  console.log(`built into ${FUNCTIONS_OUT_DIR}/`);
}
