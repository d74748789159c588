import { describe, expect, it } from 'vitest';
import {
  callingArguments,
  expertErrorLines,
  expertMessages,
  parseGoldenPath,
} from '../../../../packages/eval/src/cloud-opsbench/golden-trajectory.ts';

describe('parseGoldenPath', () => {
  it('reads each step’s tool, arguments and output', () => {
    const parsed = parseGoldenPath({
      statistics: {},
      diagnostic_trace: [
        {
          tool_name: 'GetErrorLogs',
          calling: "tool_name='GetErrorLogs' arguments={service_name: 'ts-a', namespace: 'train-ticket'}",
          output: [],
        },
      ],
    });
    expect(parsed).toEqual({
      ok: true,
      steps: [{ tool: 'GetErrorLogs', args: { service_name: 'ts-a', namespace: 'train-ticket' }, output: [] }],
    });
  });

  it('refuses a file that is not a golden path, naming where', () => {
    expect(parseGoldenPath({ steps: [] })).toEqual({ ok: false, problem: 'not a golden path (diagnostic_trace)' });
    expect(parseGoldenPath({ diagnostic_trace: [{ calling: 'x' }] })).toEqual({
      ok: false,
      problem: 'not a golden path (diagnostic_trace.0.tool_name)',
    });
  });
});

describe('callingArguments', () => {
  it('reads quoted and bare values, and nothing from a call without arguments', () => {
    expect(callingArguments("tool_name='C' arguments={service_name: 'db', port: 3306, mode: \"x y\"}")).toEqual({
      service_name: 'db',
      port: '3306',
      mode: 'x y',
    });
    expect(callingArguments("tool_name='GetAlerts'")).toEqual({});
  });
});

describe('expertErrorLines', () => {
  const chunks = ['2031-05-06T10:20:03.500+08:00 line one\n2031-05-06T10:20:03.600+08:00 line two'];
  it.each([
    ['the app/previous object', { app: chunks, previous: ['line three'] }, ['line one', 'line two', 'line three']],
    ['the same as JSON text', JSON.stringify({ app: chunks }), ['line one', 'line two']],
    ['JSON text encoded twice', JSON.stringify(JSON.stringify({ app: chunks })), ['line one', 'line two']],
    ['a pattern summary', { total_errors: 3, patterns: [{ count: 3, sample: 'sampled line' }] }, ['sampled line']],
    ['a list of lines', ['a', 'b\nc'], ['a', 'b', 'c']],
    ['an empty text', '', []],
    ['the tool’s no-errors answer', 'No error logs found for x in y namespace.', []],
    ['plain text', 'first\nsecond', ['first', 'second']],
    ['anything else', 42, []],
  ])('reads %s', (_shape, output, expected) => {
    const lines = expertErrorLines(output).map((line) => line.replace(/^\S+\+08:00 /, ''));
    expect(lines).toEqual(expected);
  });
});

describe('expertMessages', () => {
  it('strips the container prefix and the application’s time and level, and skips frames, blanks and repeats', () => {
    expect(
      expertMessages([
        '2031-05-06T10:20:03.500100+08:00 2031-05-06 10:20:03.500 ERROR 1 --- [   main] c.z.h.p.HikariPool  : pool failed',
        '2031-05-06T10:20:03.500200+08:00 ',
        "2031-05-06T10:20:03.500300+08:00 java.sql.SQLException: Access denied for user 'ledger'@'10.9.8.7'",
        '2031-05-06T10:20:03.500400+08:00 \tat com.example.Handler.invoke(Handler.java:12)',
        '\t... 12 common frames omitted',
        "java.sql.SQLException: Access denied for user 'ledger'@'10.9.8.7'",
        'Caused by: com.mysql.cj.exceptions.CJCommunicationsException: Communicati...',
      ]),
    ).toEqual([
      '1 --- [ main] c.z.h.p.HikariPool : pool failed',
      "java.sql.SQLException: Access denied for user 'ledger'@'10.9.8.7'",
      // The experts' tool cut this line: its start is what counts.
      'Caused by: com.mysql.cj.exceptions.CJCommunicationsException: Communicati',
    ]);
  });
});
