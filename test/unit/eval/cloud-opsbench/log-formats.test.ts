import { describe, expect, it } from 'vitest';
import { createHeaderParser, levelOf } from '../../../../packages/eval/src/cloud-opsbench/log-formats.ts';

const parse = createHeaderParser();
const at = (iso: string) => Date.parse(iso);

describe('createHeaderParser', () => {
  it.each([
    [
      'Spring Boot',
      '2031-05-06 10:20:03.500 ERROR 1 --- [           main] c.z.h.p.HikariPool : HikariPool-1 - failed',
      'ERROR',
      { kind: 'naive', wallMs: at('2031-05-06T10:20:03.500Z') },
      '1 --- [           main] c.z.h.p.HikariPool : HikariPool-1 - failed',
    ],
    [
      'logback with comma milliseconds',
      '2031-05-07 08:00:01,250 INFO The server IP list is [fare-0]',
      'INFO',
      { kind: 'naive', wallMs: at('2031-05-07T08:00:01.250Z') },
      'The server IP list is [fare-0]',
    ],
    [
      'RabbitMQ lager',
      '2031-05-07 08:00:00.300 [error] <0.288.0> CRASH REPORT',
      'ERROR',
      { kind: 'naive', wallMs: at('2031-05-07T08:00:00.300Z') },
      '<0.288.0> CRASH REPORT',
    ],
    [
      'MySQL with its zone',
      '2031-05-07T08:00:00.100000+08:00 0 [Warning] TIMESTAMP with implicit DEFAULT value is deprecated.',
      'WARN',
      { kind: 'instant', ms: at('2031-05-07T00:00:00.100Z'), offset: '+08:00' },
      'TIMESTAMP with implicit DEFAULT value is deprecated.',
    ],
    [
      'gunicorn',
      '[2031-05-07 08:00:03 +0800] [1] [ERROR] Worker failed to boot.',
      'ERROR',
      { kind: 'instant', ms: at('2031-05-07T00:00:03.000Z'), offset: '+08:00' },
      'Worker failed to boot.',
    ],
    [
      'zap / Istio (tabs)',
      '2031-05-06T02:20:09.000000Z\twarn\tenvoy upstream: reset',
      'WARN',
      { kind: 'instant', ms: at('2031-05-06T02:20:09.000Z'), offset: 'Z' },
      'envoy upstream: reset',
    ],
    [
      'nginx error log',
      '2031/05/06 10:20:07 [error] 7#7: *31 connect() failed (111: Connection refused)',
      'ERROR',
      { kind: 'naive', wallMs: at('2031-05-06T10:20:07.000Z') },
      '7#7: *31 connect() failed (111: Connection refused)',
    ],
    [
      'Redis (# is a warning)',
      '1:M 01 Jun 2031 03:01:10.000 # WARNING overcommit_memory is set to 0',
      'WARN',
      { kind: 'naive', wallMs: at('2031-06-01T03:01:10.000Z') },
      'WARNING overcommit_memory is set to 0',
    ],
    ['.NET console (fail)', 'fail: cartstore.RedisCartStore[0]', 'ERROR', undefined, 'cartstore.RedisCartStore[0]'],
  ])('reads %s', (_format, line, level, time, message) => {
    expect(parse(line, 2031)).toEqual({ level, time, message });
  });

  it('reads a klog line with the year it is given', () => {
    expect(parse('E0506 10:20:07.123456       1 reflector.go:138] watch failed', 2031)).toEqual({
      level: 'ERROR',
      time: { kind: 'naive', wallMs: at('2031-05-06T10:20:07.123Z') },
      message: 'reflector.go:138] watch failed',
    });
  });

  it('takes an nginx access line’s level from its status: 5xx ERROR, 4xx WARN, else INFO', () => {
    const access = (status: number) =>
      parse(`10.0.0.1 - - [06/May/2031:10:20:05 +0800] "POST /x HTTP/1.1" ${status} 58 "-" "curl"`, 2031);
    expect(access(503)?.level).toBe('ERROR');
    expect(access(404)?.level).toBe('WARN');
    expect(access(200)).toEqual({
      level: 'INFO',
      time: { kind: 'instant', ms: at('2031-05-06T02:20:05.000Z'), offset: '+08:00' },
      message: '10.0.0.1 - - [06/May/2031:10:20:05 +0800] "POST /x HTTP/1.1" 200 58 "-" "curl"',
    });
  });

  it('reads JSON lines: logrus, pino, log4j2 and Python times, the message first and the other fields after it', () => {
    expect(
      parse(
        JSON.stringify({
          error: 'connection refused',
          'http.req.path': '/cart',
          message: 'request error',
          severity: 'error',
          timestamp: '2031-06-01T03:02:00.200000000Z',
        }),
        2031,
      ),
    ).toEqual({
      level: 'ERROR',
      time: { kind: 'instant', ms: at('2031-06-01T03:02:00.200Z'), offset: 'Z' },
      message: 'request error error=connection refused http.req.path=/cart',
    });
    expect(parse(JSON.stringify({ severity: 'warning', time: 1938049330000, message: 'slow' }), 2031)?.time).toEqual({
      kind: 'instant',
      ms: 1938049330000,
      offset: 'Z',
    });
    expect(parse(JSON.stringify({ timestamp: 1938049320.25, severity: 'ERROR', message: 'x' }), 2031)?.time).toEqual({
      kind: 'instant',
      ms: 1938049320250,
      offset: 'Z',
    });
    const log4j = { instant: { epochSecond: 1938049300, nanoOfSecond: 5_000_000 }, level: 'ERROR', message: 'bind' };
    expect(parse(JSON.stringify(log4j), 2031)).toEqual({
      level: 'ERROR',
      time: { kind: 'instant', ms: 1938049300005, offset: 'Z' },
      message: 'bind',
    });
  });

  it('finds no header in a line without one, a JSON value that is not an object, or one with neither level nor message', () => {
    for (const line of [
      'quote computed for 3 items',
      '+ export JAVA_OPTS=-Xmx512m',
      '\tat com.example.Handler.invoke(Handler.java:12)',
      '[1, 2]',
      '{"user": "a"}',
      '{not json',
      '2031-05-06 10:20:03 the level word is missing',
    ]) {
      expect(parse(line, 2031)).toBeUndefined();
    }
  });

  it('gives UNKNOWN for a JSON line whose level word is not one', () => {
    expect(parse('{"level": "loud", "message": "m"}', 2031)?.level).toBe('UNKNOWN');
  });
});

describe('levelOf', () => {
  it.each([
    ['FATAL', 'ERROR'],
    ['fail', 'ERROR'],
    ['Warning', 'WARN'],
    ['notice', 'INFO'],
    ['Note', 'INFO'],
    ['trce', 'DEBUG'],
    ['verbose', 'DEBUG'],
    ['loud', undefined],
  ])('maps %s to %s', (word, level) => {
    expect(levelOf(word)).toBe(level);
  });
});
