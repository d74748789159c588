/**
 * The source text of the deployment: sst.config.ts and the modules of deploy/resources/ it builds the resources with,
 * in one string, for the tests that read what is deployed from the code itself (the functions, the routes).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const RESOURCES = join(ROOT, 'deploy/resources');

/** sst.config.ts, then each module of deploy/resources/ by name. */
export function readDeploymentSource(): string {
  const modules = readdirSync(RESOURCES)
    .filter((name) => name.endsWith('.ts'))
    .sort()
    .map((name) => readFileSync(join(RESOURCES, name), 'utf8'));
  return [readFileSync(join(ROOT, 'sst.config.ts'), 'utf8'), ...modules].join('\n');
}
