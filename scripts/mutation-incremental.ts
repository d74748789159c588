/**
 * `npm run test:mutation:incremental` (CI's mutation check; docs/development.md, "Mutation testing"): Stryker in
 * incremental mode over the gated security-critical modules (every target without a `pending` note in
 * test/mutation/mutation-targets.ts), against the committed report (test/mutation/stryker-incremental.json): a mutant
 * whose code and killing test are unchanged keeps its recorded result, the rest are tested again. Then
 * scripts/check-mutation-scores.ts --gated holds each gated module to the threshold and names the pending ones.
 *
 * Fails, never passes, when it cannot check: no committed report, or a report so stale that the re-tests do not finish
 * within `MUTATION_TIME_LIMIT_MINUTES` (20 by default; Stryker is interrupted, which saves its progress locally).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { GATED_MODULES } from '../test/mutation/mutation-targets.ts';

const BASELINE = 'test/mutation/stryker-incremental.json';
const limitMinutes = Number(process.env.MUTATION_TIME_LIMIT_MINUTES ?? 20);

if (!existsSync(BASELINE)) {
  console.log(`mutation: no committed report at ${BASELINE}: run \`npm run test:mutation\` and commit it`);
  process.exit(1);
}

// NOTE: its own process group, so that the interrupt reaches Stryker and its test runners, and Stryker restores the
// sources it mutated in place before it exits.
const stryker = spawn('stryker', ['run', '--incremental', '--mutate', GATED_MODULES.join(',')], {
  stdio: 'inherit',
  detached: true,
});
let timedOut = false;
const timer = setTimeout(
  () => {
    timedOut = true;
    if (stryker.pid !== undefined) process.kill(-stryker.pid, 'SIGINT');
  },
  limitMinutes * 60 * 1_000,
);
stryker.on('exit', (code) => {
  clearTimeout(timer);
  if (timedOut) {
    console.log(
      `mutation: the re-tests did not finish in ${limitMinutes} min: the committed report is too stale; run ` +
        `\`npx stryker run --incremental\` to the end (it resumes where it stopped) and commit ${BASELINE}`,
    );
    process.exit(1);
  }
  if (code !== 0) process.exit(code ?? 1);
  const check = spawnSync(process.execPath, ['scripts/check-mutation-scores.ts', '--gated'], { stdio: 'inherit' });
  process.exit(check.status ?? 1);
});
