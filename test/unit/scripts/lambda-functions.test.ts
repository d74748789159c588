import { describe, expect, it } from 'vitest';
import { parseFunctionNames } from '../../../scripts/lambda-functions.ts';

describe('parseFunctionNames', () => {
  it('returns the named functions once each when every entry names one', () => {
    expect(parseFunctionNames('GetRun, SlackWork,GetRun')).toEqual({ names: ['GetRun', 'SlackWork'], unknown: [] });
  });

  it('returns no function and nothing unknown when the list is empty', () => {
    expect(parseFunctionNames('')).toEqual({ names: [], unknown: [] });
    expect(parseFunctionNames(' , ')).toEqual({ names: [], unknown: [] });
  });

  it('returns the entries that name no function when the list has a typo or an inherited key', () => {
    expect(parseFunctionNames('GetRun,getrun,Diagnose.ts,toString')).toEqual({
      names: ['GetRun'],
      unknown: ['getrun', 'Diagnose.ts', 'toString'],
    });
  });
});
