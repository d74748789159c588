import { describe, expect, it } from 'vitest';
import {
  CONTAINER_LOG_LIMITS,
  formatInstant,
  parseContainerLog,
} from '../../../../packages/eval/src/cloud-opsbench/container-log.ts';

const options = { zone: '+08:00', year: 2031 };
const prefix = (time: string) => `2031-05-06T10:${time}+08:00 `;
const frame = (index: number) =>
  `\tat com.example.ledger.Handler${index}.invoke(Handler${index}.java:${index}) ~[a.jar]`;

describe('parseContainerLog', () => {
  it('joins a stack trace to the line that starts it, frames folded, the chain of causes kept, the prefix as time', () => {
    const log = [
      `${prefix('20:03.500000100')}2031-05-06 10:20:03.500 ERROR 1 --- [   main] c.z.h.p.HikariPool : pool failed`,
      prefix('20:03.500000200'),
      `${prefix('20:03.500000300')}java.sql.SQLException: Access denied for user 'ledger'@'10.9.8.7'`,
      ...Array.from({ length: 50 }, (_, index) => `${prefix('20:03.500000400')}${frame(index)}`),
      `${prefix('20:03.500000500')}Caused by: com.example.RotationException: secret rotated`,
      `${prefix('20:03.500000600')}${frame(1)}`,
      `${prefix('20:03.500000700')}\t... 12 common frames omitted`,
      `${prefix('20:04.000000000')}2031-05-06 10:20:04.000  INFO 1 --- [   main] c.e.App : stopping`,
    ].join('\n');
    const { events } = parseContainerLog(log, options);
    expect(events).toEqual([
      {
        time: Date.parse('2031-05-06T02:20:03.500Z'),
        timestamp: '2031-05-06T10:20:03.500+08:00',
        level: 'ERROR',
        message: [
          '1 --- [ main] c.z.h.p.HikariPool : pool failed',
          "java.sql.SQLException: Access denied for user 'ledger'@'10.9.8.7'",
          '... 50 frames',
          'Caused by: com.example.RotationException: secret rotated',
          '... 2 frames',
        ].join('\n'),
      },
      {
        time: Date.parse('2031-05-06T02:20:04.000Z'),
        timestamp: '2031-05-06T10:20:04.000+08:00',
        level: 'INFO',
        message: '1 --- [ main] c.e.App : stopping',
      },
    ]);
  });

  it('joins the lines of one write (microseconds apart) and keeps a line written later as an event of its own', () => {
    const log = [
      `${prefix('20:03.600000000')}2031-05-06 10:20:03.600 ERROR 1 --- [main] o.h.SqlExceptionHelper : link failure`,
      prefix('20:03.600000010'),
      `${prefix('20:03.600000020')}The last packet sent successfully to the server was 0 milliseconds ago.`,
      `${prefix('20:09.000000000')}a plain line written much later`,
    ].join('\n');
    const { events } = parseContainerLog(log, options);
    expect(events.map((event) => [event.level, event.message])).toEqual([
      [
        'ERROR',
        '1 --- [main] o.h.SqlExceptionHelper : link failure\nThe last packet sent successfully to the server was 0 milliseconds ago.',
      ],
      ['UNKNOWN', 'a plain line written much later'],
    ]);
  });

  it('learns the zone of the application’s own clock from lines that carry both, for a container without prefixes', () => {
    // The application logs in UTC while the runtime's prefix is in +08:00.
    const current = `2031-05-06T22:27:05.770+08:00 2031-05-06 14:27:05.770 ERROR 1 --- [exec-8] i.PaymentImpl : failed`;
    const parsed = parseContainerLog(current, options);
    expect(parsed.learnedZone).toBe('Z');
    const previous = parseContainerLog('2031-05-06 14:20:00.000 ERROR 1 --- [main] i.PaymentImpl : earlier', {
      ...options,
      learnedZone: parsed.learnedZone,
    });
    expect(previous.events[0]?.time).toBe(Date.parse('2031-05-06T14:20:00.000Z'));
    expect(previous.events[0]?.timestamp).toBe('2031-05-06T14:20:00.000Z');
    // Without a lesson, a time without zone is read in the case's zone.
    const untaught = parseContainerLog('2031-05-06 14:20:00.000 ERROR 1 --- [main] x : y', options);
    expect(untaught.events[0]?.timestamp).toBe('2031-05-06T14:20:00.000+08:00');
  });

  it('reads a log without levels: each line an event of UNKNOWN level, an exception or traceback an ERROR', () => {
    const { events } = parseContainerLog(
      [
        'starting shipping quotes',
        'quote computed for 3 items',
        'Traceback (most recent call last):',
        '  File "/app/server.py", line 42, in send',
        '    render(template)',
        "KeyError: 'order'",
      ],
      options,
    );
    expect(events.map((event) => [event.level, event.message])).toEqual([
      ['UNKNOWN', 'starting shipping quotes'],
      ['UNKNOWN', 'quote computed for 3 items'],
      ['ERROR', "Traceback (most recent call last):\n... 2 frames\nKeyError: 'order'"],
    ]);
    // No line has a time: the importer places the stream.
    expect(events.every((event) => Number.isNaN(event.time) && event.timestamp === '')).toBe(true);
  });

  it('joins .NET’s indented message to its level line and gives an untimed event its neighbour’s time', () => {
    const { events, stats } = parseContainerLog(
      [
        'info: Microsoft.Hosting.Lifetime[14]',
        '      Now listening on: http://[::]:7070',
        JSON.stringify({ message: 'tick', severity: 'info', timestamp: '2031-06-01T03:00:00Z' }),
        'fail: cartstore.RedisCartStore[0]',
        "      Can't access cart storage.",
      ],
      options,
    );
    expect(events.map((event) => [event.timestamp, event.level, event.message])).toEqual([
      ['2031-06-01T03:00:00.000Z', 'INFO', 'Microsoft.Hosting.Lifetime[14]\nNow listening on: http://[::]:7070'],
      ['2031-06-01T03:00:00.000Z', 'INFO', 'tick'],
      ['2031-06-01T03:00:00.000Z', 'ERROR', "cartstore.RedisCartStore[0]\nCan't access cart storage."],
    ]);
    expect(stats.untimedEvents).toBe(2);
  });

  it('drops kubectl’s own notes (a log it could not fetch) and keeps a line repeated inside an event once', () => {
    const { events, stats } = parseContainerLog(
      [
        'Error: Defaulted container "mysql" out of: mysql, xenon',
        'Error from server (BadRequest): previous terminated container "mysql" in pod "db-0" not found',
        'Error: Error from server (BadRequest): previous terminated container "app" in pod "app-1" not found',
        '2031-05-06 10:20:00.000 ERROR 1 --- [main] c.A : failed',
        'java.lang.IllegalStateException: boom',
        '\tat a.B.c(B.java:1)',
        'java.lang.IllegalStateException: boom',
      ].join('\n'),
      options,
    );
    expect(stats.kubectlNotes).toBe(3);
    expect(events.map((event) => event.message)).toEqual([
      '1 --- [main] c.A : failed\njava.lang.IllegalStateException: boom\n... 1 frame',
    ]);
  });

  it('bounds what a hostile log costs: lines per event, characters per line, lines per stream; never throws', () => {
    const many = ['2031-05-06 10:20:00.000 ERROR 1 --- [main] c.A : start'];
    for (let index = 0; index < CONTAINER_LOG_LIMITS.eventLines + 50; index += 1) many.push(`  detail ${index}`);
    const [event] = parseContainerLog(many, options).events;
    expect(event?.message.split('\n')).toHaveLength(CONTAINER_LOG_LIMITS.eventLines + 1);
    expect(event?.message.endsWith('... 51 more lines')).toBe(true);

    const wide = parseContainerLog(`x${'y'.repeat(CONTAINER_LOG_LIMITS.lineChars * 2)}`, options);
    expect(wide.events[0]?.message.length).toBe(CONTAINER_LOG_LIMITS.lineChars);

    const long = parseContainerLog(
      Array.from({ length: CONTAINER_LOG_LIMITS.lines + 10 }, () => 'a'),
      options,
    );
    expect(long.stats.droppedLines).toBe(10);

    const odd = parseContainerLog([42, null, { a: 1 }, 'line'], options);
    expect(odd.stats.droppedLines).toBe(3);
    expect(odd.events.map((event) => event.message)).toEqual(['line']);
  });
});

describe('formatInstant', () => {
  it('writes an instant as the wall clock of its zone, to the millisecond', () => {
    const ms = Date.parse('2031-05-06T02:20:03.500Z');
    expect(formatInstant(ms, '+08:00')).toBe('2031-05-06T10:20:03.500+08:00');
    expect(formatInstant(ms, 'Z')).toBe('2031-05-06T02:20:03.500Z');
    expect(formatInstant(ms, '-05:30')).toBe('2031-05-05T20:50:03.500-05:30');
  });
});
