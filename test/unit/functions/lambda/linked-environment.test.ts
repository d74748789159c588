import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = pathToFileURL(resolve(import.meta.dirname, '../../../../functions/lambda/linked-environment.ts')).href;

/**
 * SST hands each linked resource to the function as `SST_RESOURCE_<name>` (JSON), read once per process by
 * `sst/resource`: so each case is its own Node process, as each Lambda sandbox is.
 */
function linkedWith(resources: Record<string, unknown>, environment: Record<string, string> = {}) {
  const linked = Object.fromEntries(
    Object.entries(resources).map(([name, value]) => [`SST_RESOURCE_${name}`, JSON.stringify(value)]),
  );
  const output = execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { readLinkedEnvironment } = await import(${JSON.stringify(MODULE)});
       const merged = readLinkedEnvironment();
       console.log(JSON.stringify({ model: merged.DIAGNOSIS_MODEL_API_KEY ?? null, judge: merged.SEMANTIC_GUARD_MODEL_API_KEY ?? null }));`,
    ],
    { env: { PATH: process.env.PATH ?? '', ...linked, ...environment }, encoding: 'utf8' },
  );
  return JSON.parse(output) as { model: string | null; judge: string | null };
}

describe('readLinkedEnvironment', () => {
  it('gives the judge its own key from the JudgeApiKey secret', () => {
    expect(linkedWith({ ModelApiKey: { value: 'model-key' }, JudgeApiKey: { value: 'judge-key' } })).toEqual({
      model: 'model-key',
      judge: 'judge-key',
    });
  });

  it('leaves the judge on the model key when JudgeApiKey is "none"', () => {
    expect(linkedWith({ ModelApiKey: { value: 'model-key' }, JudgeApiKey: { value: 'none' } })).toEqual({
      model: 'model-key',
      judge: null,
    });
  });

  it('keeps a judge key from the environment when no secret is linked (local runs)', () => {
    expect(linkedWith({}, { SEMANTIC_GUARD_MODEL_API_KEY: 'local-judge' })).toEqual({
      model: null,
      judge: 'local-judge',
    });
  });
});
