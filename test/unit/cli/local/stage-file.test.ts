import { describe, expect, it } from 'vitest';
import { EXIT } from '../../../../packages/cli/src/command-line.ts';
import { loadStageDestinations, readStageFile } from '../../../../packages/cli/src/local/stage-file.ts';

describe('readStageFile', () => {
  it.each(['../package', 'default/../../etc', 'a b', '', '.hidden', 'x'.repeat(64)])(
    'refuses the stage name %j before touching the file system (exit 64)',
    (stage) => {
      expect(() => readStageFile(stage)).toThrow(expect.objectContaining({ exitCode: EXIT.USAGE }));
    },
  );

  it('refuses a stage without a file, naming only deploy/<stage>.json', () => {
    expect(() => readStageFile('no-such-stage')).toThrow('no readable deploy/no-such-stage.json');
  });
});

describe('loadStageDestinations', () => {
  it('gives an enterprise the stage names no destination for an empty list', () => {
    expect(loadStageDestinations('default', 'E1001')).toEqual([]);
  });
});
