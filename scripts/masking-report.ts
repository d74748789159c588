/**
 * What masking takes out of a world's text, by kind: every log message, runbook and MySQL seed of the example world
 * and of each eval scenario, masked as the tool boundary would (identifiers, no deployment patterns), counted by kind
 * with a few distinct values of each, so a person can tell what was masked that should not have been. For the
 * example world, whose personal data the generator plants behind `user_phone=`, `client_ip=` and `notify_email=`,
 * it also counts the planted values that were missed.
 * Run: `node scripts/masking-report.ts` (figures in BENCHMARKS.md, "Masking").
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createMaskingSession } from '../packages/core/src/tools/masking/masking-session.ts';

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : /\.(jsonl|md|sql)$/.test(name) ? [path] : [];
  });
}

function report(label: string, folder: string) {
  const masking = createMaskingSession(
    { mode: 'identifiers', secret: 'report-masking-secret-of-32-characters!' },
    label,
  );
  let texts = 0;
  let planted = 0;
  let missed = 0;
  for (const file of filesUnder(folder)) {
    const lines = file.endsWith('.jsonl')
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => String((JSON.parse(line) as { message?: unknown }).message ?? ''))
      : [readFileSync(file, 'utf8')];
    for (const text of lines) {
      texts += 1;
      const masked = masking.maskText(text);
      for (const match of text.matchAll(/(?:user_phone|client_ip|notify_email)=(\S+)/g)) {
        planted += 1;
        if (masked.includes(match[1] ?? '')) missed += 1;
      }
    }
  }
  const byKind = new Map<string, string[]>();
  for (const entry of masking.entries()) byKind.set(entry.kind, [...(byKind.get(entry.kind) ?? []), entry.value]);
  console.log(
    `\n${label}: ${texts} texts, ${masking.entries().length} distinct values masked${planted > 0 ? `, planted ${planted}, missed ${missed}` : ''}`,
  );
  for (const [kind, values] of [...byKind].sort()) {
    console.log(`  ${kind.padEnd(12)} ${String(values.length).padStart(5)}  e.g. ${values.slice(0, 4).join(', ')}`);
  }
}

report('example world', 'examples');
for (const scenario of readdirSync('eval/scenarios').filter((name) =>
  statSync(join('eval/scenarios', name)).isDirectory(),
)) {
  report(`eval ${scenario}`, join('eval/scenarios', scenario));
}
