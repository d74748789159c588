/**
 * The synthetic personal data of the example world and the eval corpus (issue 22): each world's manifest
 * (`personal-data.json`, written by scripts/plant-personal-data.ts) says it is synthetic, and lists only values that
 * are in its world's files and valid for their kind (a bank card passes Luhn, a resident id its check digit), so the
 * masking accuracy figures (bench/masking-accuracy.ts) count against what is really there.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { passesLuhn, passesResidentIdChecksum } from '../../../packages/core/src/tools/masking/checksums.ts';
import { manifestPath, type PersonalDataManifest } from '../../../scripts/plant-personal-data.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const SCENARIOS = join(ROOT, 'eval/scenarios');
const worlds = [
  join(ROOT, 'examples'),
  ...readdirSync(SCENARIOS, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(SCENARIOS, entry.name, 'world'))
    // NOTE: a scenario without a world of its own runs on the example world (packages/eval/src/scenario.ts), listed above.
    .filter((world) => existsSync(world)),
];

const VALID: Record<string, (value: string) => boolean> = {
  phone: (value) => /^(?:\+86)?1[3-9][0-9]{9}$|^\+[1-9][0-9]{7,14}$/.test(value),
  email: (value) => /^[a-z0-9.]+@(?:[a-z]+\.)*example\.(?:cn|com|net)$/.test(value),
  ipv4: (value) => isIP(value) === 4,
  ipv6: (value) => isIP(value) === 6 && value.startsWith('2001:db8:'),
  bank_card: (value) => /^[0-9]{16}$/.test(value) && passesLuhn(value),
  cn_id: (value) => /^[0-9]{17}[0-9X]$/.test(value) && passesResidentIdChecksum(value),
  aws_account: (value) => /^[1-9][0-9]{11}$/.test(value),
  aws_id: (value) => /^[0-9a-f]{17}$/.test(value),
  customer_id: (value) => /^CUST-[0-9]{6}$/.test(value),
  bearer: (value) => /^[A-Za-z0-9]{40}$/.test(value),
  password: (value) => /^[A-Za-z0-9]{16}$/.test(value),
};

describe('the worlds’ synthetic personal data (scripts/plant-personal-data.ts)', () => {
  it('gives every world with logs or runbooks a manifest that says the data is synthetic', () => {
    for (const world of worlds) {
      expect(existsSync(manifestPath(world)), world).toBe(true);
      const manifest = JSON.parse(readFileSync(manifestPath(world), 'utf8')) as PersonalDataManifest;
      expect(manifest.synthetic).toBe(true);
      expect(manifest.description).toContain('SYNTHETIC');
    }
  });

  it('lists only values that are in the world’s file they name, each valid for its kind', () => {
    for (const world of worlds) {
      const manifest = JSON.parse(readFileSync(manifestPath(world), 'utf8')) as PersonalDataManifest;
      const files = new Map<string, string>();
      for (const planted of manifest.values) {
        const text = files.get(planted.file) ?? readFileSync(join(world, planted.file), 'utf8');
        files.set(planted.file, text);
        expect(text.includes(planted.value), `${world} ${planted.file} ${planted.kind}`).toBe(true);
        expect(VALID[planted.kind]?.(planted.value), `${world} ${planted.kind} ${planted.value}`).toBe(true);
      }
    }
  });

  it('plants every kind the issue names somewhere in the eval corpus, and a secret in each logged world', () => {
    const kinds = new Set<string>();
    for (const world of worlds.slice(1)) {
      const manifest = JSON.parse(readFileSync(manifestPath(world), 'utf8')) as PersonalDataManifest;
      for (const planted of manifest.values) kinds.add(planted.kind);
      if (existsSync(join(world, 'logs')) && readdirSync(join(world, 'logs')).some((name) => name.endsWith('.jsonl'))) {
        expect(
          manifest.values.some((planted) => planted.kind === 'bearer' || planted.kind === 'password'),
          world,
        ).toBe(true);
      }
    }
    expect([...kinds].sort()).toEqual(Object.keys(VALID).sort());
  });
});
