/**
 * The secrets layer on its own (issue 33): each pattern at the edges of what it takes (lengths, alphabets, prefixes,
 * boundaries), the kind each key name stands for, and the markers it keeps. A surviving mutant here is a secret that
 * reaches the model, or text around it that no longer does. Every secret is synthetic.
 * NOTE: over 300 lines on purpose: the secrets layer's cases, each pattern at its edges; a masking module under
 * mutation testing whose killing tests test/mutation/mutation-targets.ts names by this file.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  redactionMarker,
  redactSecrets,
  SECRET_KINDS,
  secretKindOfKey,
} from '../../../../../packages/core/src/tools/masking/secret-redaction.ts';

/** `count` characters cycling through lower and upper letters, digits and `extra`, the last one a letter. */
const token = (count: number, extra = '') => {
  const alphabet = `aZ0${extra}bY9zA`;
  return Array.from({ length: count }, (_, index) =>
    index === count - 1 ? 'q' : alphabet[index % alphabet.length],
  ).join('');
};

describe('SECRET_KINDS and redactionMarker', () => {
  const kinds = [
    'pem',
    'jwt',
    'aws_access_key',
    'aws_secret_key',
    'bearer',
    'basic',
    'password',
    'token',
    'api_key',
    'secret',
    'vendor_token',
  ];

  it('names the eleven kinds of marker and writes each as [REDACTED:kind]', () => {
    expect(SECRET_KINDS).toEqual(kinds);
    expect(redactionMarker('jwt')).toBe('[REDACTED:jwt]');
  });

  it.each(kinds)('keeps its own marker of kind %s after a secret key (redacting twice changes nothing)', (kind) => {
    expect(redactSecrets(`password=[REDACTED:${kind}]`)).toBe(`password=[REDACTED:${kind}]`);
    expect(redactSecrets(`Authorization: [REDACTED:${kind}]`)).toBe(`Authorization: [REDACTED:${kind}]`);
  });

  it('redacts a look-alike marker of an unknown kind, and a marker cut before its bracket stays whole', () => {
    expect(redactSecrets('password=[REDACTED:hunter]')).toBe('password=[REDACTED:password]');
    expect(redactSecrets('password=[REDACTED:Password]')).toBe('password=[REDACTED:password]');
    expect(redactSecrets('password=[MASKED:password]')).toBe('password=[REDACTED:password]');
    expect(redactSecrets('password=x[REDACTED:password]')).toBe('password=[REDACTED:password]]');
    expect(redactSecrets('Authorization: [REDACTED:password];')).toBe('Authorization: [REDACTED:password];');
    expect(redactSecrets('Authorization: [REDACTED:password]x')).toBe('Authorization: [REDACTED:bearer]');
    expect(redactSecrets(`password=[REDACTED:${'a'.repeat(25)}]`)).toBe('password=[REDACTED:password]');
    expect(redactSecrets(`token: "[REDACTED:token"`)).toBe('token: "[REDACTED:token"');
  });
});

describe('secretKindOfKey', () => {
  it.each([
    ['password', 'password'],
    ['db_passwd', 'password'],
    ['user-pwd', 'password'],
    ['key_passphrase', 'password'],
    ['aws_secret_access_key', 'aws_secret_key'],
    ['client_secret', 'secret'],
    ['secret', 'secret'],
    ['jwt_secret_key', 'secret'],
    ['private.key', 'secret'],
    ['x-api-key', 'api_key'],
    ['access_key', 'api_key'],
    ['refreshToken', 'token'],
    ['SESSION_ID', 'token'],
    ['set-cookie', 'token'],
    ['credential', 'secret'],
    ['db_credentials', 'secret'],
    ['proxy_authorization', 'token'],
    ['x-hub-signature', 'secret'],
  ])('reads %s as a %s', (key, kind) => {
    expect(secretKindOfKey(key)).toBe(kind);
    // A second look-up gives the same kind (the answer is cached per name).
    expect(secretKindOfKey(key)).toBe(kind);
  });

  it.each(['token_count', 'password_length', 'secret_arn', 'undefined', 'is_undefined', '', '___', 'user'])(
    'reads %s as no secret',
    (key) => {
      expect(secretKindOfKey(key)).toBeNull();
    },
  );

  it('reads a name of at most 64 letters and digits, however long its separators make it', () => {
    expect(secretKindOfKey(`${'a'.repeat(56)}password`)).toBe('password');
    expect(secretKindOfKey(`${'a'.repeat(57)}password`)).toBeNull();
    expect(secretKindOfKey(`${'_'.repeat(70)}password`)).toBe('password');
  });
});

describe('redactSecrets: vendor tokens and AWS keys', () => {
  it.each([
    ['ghp_', 30, 255, ''],
    ['gho_', 30, 255, ''],
    ['ghu_', 30, 255, ''],
    ['ghs_', 30, 255, ''],
    ['ghr_', 30, 255, ''],
    ['github_pat_', 22, 255, '_'],
    ['xoxa-', 10, 255, '-'],
    ['xoxb-', 10, 255, '-'],
    ['xoxp-', 10, 255, '-'],
    ['xoxo-', 10, 255, '-'],
    ['xoxs-', 10, 255, '-'],
    ['xoxr-', 10, 255, '-'],
    ['sk_live_', 16, 255, ''],
    ['rk_test_', 16, 255, ''],
    ['sk-', 20, 255, '_-'],
    ['AIza', 35, 35, '_-'],
    ['npm_', 36, 36, ''],
    ['glpat-', 20, 64, '_-'],
  ])('redacts %s with %i to %i characters, and no shorter or longer one', (prefix, shortest, longest, extra) => {
    const at = (count: number) => `${prefix}${token(count, extra)}`;
    expect(redactSecrets(`key ${at(shortest)} leaked`)).toBe('key [REDACTED:vendor_token] leaked');
    expect(redactSecrets(`(${at(longest)})`)).toBe('([REDACTED:vendor_token])');
    expect(redactSecrets(`key ${at(shortest - 1)} ok`)).toBe(`key ${at(shortest - 1)} ok`);
    const tooLong = `${prefix}${token(longest + 1)}`;
    expect(redactSecrets(`key ${tooLong} ok`)).toBe(`key ${tooLong} ok`);
    // Inside a longer word it is not a token of that vendor.
    expect(redactSecrets(`x${at(shortest)}`)).toBe(`x${at(shortest)}`);
  });

  it('takes 255 characters after the project prefix of an OpenAI or Anthropic key', () => {
    for (const prefix of ['sk-proj-', 'sk-ant-']) {
      expect(redactSecrets(`${prefix}${token(255)}`)).toBe('[REDACTED:vendor_token]');
      expect(redactSecrets(`${prefix}${token(256)}`)).toBe(`${prefix}${token(256)}`);
    }
    expect(redactSecrets(`sk-${token(256)}`)).toBe(`sk-${token(256)}`);
  });

  it('takes a vendor token only up to a word boundary', () => {
    const ghp = `ghp_${token(30)}`;
    expect(redactSecrets(`${ghp}_tail`)).toBe(`${ghp}_tail`);
    expect(redactSecrets(`${ghp}-tail`)).toBe('[REDACTED:vendor_token]-tail');
    expect(redactSecrets(`gha_${token(30)} ghp-${token(30)}`)).toBe(`gha_${token(30)} ghp-${token(30)}`);
    expect(redactSecrets(`xoxc-${token(10)} pk_live_${token(16)}`)).toBe(`xoxc-${token(10)} pk_live_${token(16)}`);
    expect(redactSecrets(`sk_prod_${token(16)} sk+${token(20)}`)).toBe(`sk_prod_${token(16)} sk+${token(20)}`);
  });

  it.each(['AKIA', 'ASIA', 'ABIA', 'ACCA'])('redacts an AWS access key id starting %s, 20 characters', (prefix) => {
    const key = `${prefix}IOSFODNN7EXAMPL9`;
    expect(redactSecrets(`key ${key} used`)).toBe('key [REDACTED:aws_access_key] used');
    expect(redactSecrets(`${key}`)).toBe('[REDACTED:aws_access_key]');
    expect(redactSecrets(`key ${key}X used`)).toBe(`key ${key}X used`);
    expect(redactSecrets(`key ${key.slice(0, -1)} used`)).toBe(`key ${key.slice(0, -1)} used`);
    expect(redactSecrets(`key X${key} used`)).toBe(`key X${key} used`);
    expect(redactSecrets(`key ${key.slice(0, 4)}iosfodnn7exampl9 used`)).toBe(
      `key ${key.slice(0, 4)}iosfodnn7exampl9 used`,
    );
  });

  it('leaves a look-alike AWS prefix alone', () => {
    for (const prefix of ['AKIB', 'AGIA', 'AXIA', 'ACIA', 'BKIA']) {
      expect(redactSecrets(`key ${prefix}IOSFODNN7EXAMPLE used`)).toBe(`key ${prefix}IOSFODNN7EXAMPLE used`);
    }
  });
});

describe('redactSecrets: passwords in URLs', () => {
  it.each([
    ['mysql://app:hunter2@db.internal:3306/shop', 'mysql://app:[REDACTED:password]@db.internal:3306/shop'],
    ['redis://:s3cr3t@cache:6379', 'redis://:[REDACTED:password]@cache:6379'],
    ['postgres+ssl://u.v-w:p:a?ss@h/db', 'postgres+ssl://u.v-w:[REDACTED:password]@h/db'],
    ['at ab://u:p@h', 'at ab://u:[REDACTED:password]@h'],
    [`${'s'.repeat(21)}://u:p@h`, `${'s'.repeat(21)}://u:[REDACTED:password]@h`],
    [`db://${'u'.repeat(256)}:p@h`, `db://${'u'.repeat(256)}:[REDACTED:password]@h`],
    [`db://u:${'p'.repeat(256)}@h`, 'db://u:[REDACTED:password]@h'],
  ])('redacts the password of %s', (text, redacted) => {
    expect(redactSecrets(text)).toBe(redacted);
  });

  it.each([
    'x://u:p@h',
    '1b://u:p@h',
    `${'s'.repeat(22)}://u:p@h`,
    `db://${'u'.repeat(257)}:p@h`,
    `db://u:${'p'.repeat(257)}@h`,
    'db://u:p q@h',
    'db://u:p/q@h',
    'db://u/v:p@h',
    'db://u:@h',
    'https://example.com/a:b@c',
    'db:/u:p@h',
  ])('leaves %s as it is (no password where the pattern takes one)', (text) => {
    expect(redactSecrets(`see ${text}`)).toBe(`see ${text}`);
  });
});

describe('redactSecrets: authorization headers, Bearer and Basic', () => {
  const long = token(20);

  it.each([
    ['Authorization: Bearer abc', 'Authorization: Bearer [REDACTED:bearer]'],
    ['authorization:bearer    abc', 'authorization:bearer    [REDACTED:bearer]'],
    ['Authorization: Basic dXNlcjpwYXNz', 'Authorization: Basic [REDACTED:basic]'],
    ['authorization=basic\tdXNlcjpwYXNz', 'authorization=basic\t[REDACTED:basic]'],
    ['Proxy-Authorization: Digest x1', 'Proxy-Authorization: Digest [REDACTED:bearer]'],
    ['AUTHORIZATION: Token abc', 'AUTHORIZATION: Token [REDACTED:bearer]'],
    ['Authorization: Negotiate YIIabc', 'Authorization: Negotiate [REDACTED:bearer]'],
    ['"authorization":"abc"', '"authorization":"[REDACTED:bearer]"'],
    ["'Authorization' :  'abc'", "'Authorization' :  '[REDACTED:bearer]'"],
    ['Authorization   =   abc, next', 'Authorization   =   [REDACTED:bearer], next'],
    ['Authorization: abc;def', 'Authorization: [REDACTED:bearer];def'],
    ['Authorization: Basicx dXNl', 'Authorization: [REDACTED:bearer] dXNl'],
  ])('redacts the credential of %s', (text, redacted) => {
    expect(redactSecrets(text)).toBe(redacted);
  });

  it('redacts at most 4096 characters of an authorization value, and leaves an empty one', () => {
    expect(redactSecrets(`Authorization: ${'a'.repeat(4_097)}`)).toBe('Authorization: [REDACTED:bearer]a');
    expect(redactSecrets('Authorization: ;')).toBe('Authorization: ;');
    expect(redactSecrets('Authorization    : abc')).toBe('Authorization    : [REDACTED:bearer]');
    expect(redactSecrets('Xauthorization: abc')).toBe('Xauthorization: [REDACTED:token]');
  });

  it('redacts a Bearer credential of 16 characters or more, in any text', () => {
    expect(redactSecrets(`sent Bearer ${long} ok`)).toBe('sent Bearer [REDACTED:bearer] ok');
    expect(redactSecrets(`sent bearer    ${long}`)).toBe('sent bearer    [REDACTED:bearer]');
    expect(redactSecrets('sent Bearer a.b_c~d+e/f=g-h1234')).toBe('sent Bearer [REDACTED:bearer]');
    expect(redactSecrets(`sent Bearer ${token(16)}`)).toBe('sent Bearer [REDACTED:bearer]');
    expect(redactSecrets(`sent Bearer ${token(15)}`)).toBe(`sent Bearer ${token(15)}`);
    expect(redactSecrets(`sent Bearer     ${long}`)).toBe('sent Bearer     [REDACTED:bearer]');
    expect(redactSecrets(`sent BEARER ${long}`)).toBe(`sent BEARER ${long}`);
    expect(redactSecrets(`sent xBearer ${long}`)).toBe(`sent xBearer ${long}`);
    expect(redactSecrets(`sent Bearer ${'a'.repeat(4_097)}`)).toBe('sent Bearer [REDACTED:bearer]a');
  });

  it('redacts a Basic credential that looks encoded (a digit, +, / or =), of 8 characters or more', () => {
    expect(redactSecrets('use Basic dXNlcjpwYXNzMQ== now')).toBe('use Basic [REDACTED:basic] now');
    expect(redactSecrets('use Basic    abcdefg1')).toBe('use Basic    [REDACTED:basic]');
    expect(redactSecrets('use Basic abcdef+g')).toBe('use Basic [REDACTED:basic]');
    expect(redactSecrets('use Basic abcdef/g')).toBe('use Basic [REDACTED:basic]');
    expect(redactSecrets('use Basic abcdefgh=')).toBe('use Basic [REDACTED:basic]');
    expect(redactSecrets('use Basic abcdefgh')).toBe('use Basic abcdefgh');
    expect(redactSecrets('use Basic abcdef1')).toBe('use Basic abcdef1');
    expect(redactSecrets('use Basic abcdefg1===')).toBe('use Basic abcdefg1===');
    expect(redactSecrets('use Basic abcdefg1é')).toBe('use Basic [REDACTED:basic]é');
    expect(redactSecrets('use Basic     abcdefg1')).toBe('use Basic     [REDACTED:basic]');
    expect(redactSecrets('use basic abcdefg1')).toBe('use basic abcdefg1');
    expect(redactSecrets('use xBasic abcdefg1')).toBe('use xBasic abcdefg1');
    expect(redactSecrets(`use Basic ${'a'.repeat(4_095)}1`)).toBe('use Basic [REDACTED:basic]');
    expect(redactSecrets(`use Basic ${'a'.repeat(4_096)}1`)).toBe(`use Basic ${'a'.repeat(4_096)}1`);
  });
});

describe('redactSecrets: key = value', () => {
  it.each([
    ['password=hunter2', 'password=[REDACTED:password]'],
    ['db_password => hunter2', 'db_password => [REDACTED:password]'],
    ['"api_key":"abc"', '"api_key":"[REDACTED:api_key]"'],
    ["'client_secret' :   'abc'", "'client_secret' :   '[REDACTED:secret]'"],
    ['x.password=abc', 'x.password=[REDACTED:password]'],
    ['(password=abc)', '(password=[REDACTED:password]'],
    ['password==', 'password=[REDACTED:password]'],
    ['password=abc&user=bob', 'password=[REDACTED:password]&user=bob'],
    ['token=a,b token=c;d', 'token=[REDACTED:token],b token=[REDACTED:token];d'],
    ['{"token":"a"}', '{"token":"[REDACTED:token]"}'],
    ['[password=a]', '[password=[REDACTED:password]]'],
    ['password=a<b>', 'password=[REDACTED:password]<b>'],
    ['password=[REDACTED:hunter2 x', 'password=[REDACTED:password] x'],
    [`password=[ABCDEFGHIJKLMNOP:${'x'.repeat(1_024)}]`, 'password=[REDACTED:password]'],
    [`${'a'.repeat(56)}password=x`, `${'a'.repeat(56)}password=[REDACTED:password]`],
    [`token=${'a'.repeat(1_025)}`, 'token=[REDACTED:token]a'],
    ['password    = abc', 'password    = [REDACTED:password]'],
    ['password =    abc', 'password =    [REDACTED:password]'],
  ])('redacts %s', (text, redacted) => {
    expect(redactSecrets(text)).toBe(redacted);
  });

  it.each([
    'token_count=42',
    '1password=abc',
    '_password=abc',
    '-password=abc',
    'password= ',
    'password=<phone:abcde>',
    'token=Bearer',
    'token=basic',
    'signature = NEGOTIATE',
    `${'a'.repeat(57)}password=x`,
    'password[x]=abc',
  ])('leaves %s as it is', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });

  it('keeps an auth scheme after a secret key only when the scheme is the whole value', () => {
    expect(redactSecrets('token=Basic')).toBe('token=Basic');
    expect(redactSecrets('token=basicauth1')).toBe('token=[REDACTED:token]');
    expect(redactSecrets('password=notbasic')).toBe('password=[REDACTED:password]');
  });

  it('takes a bracketed value whole only when it looks like a marker (up to 16 capitals, a colon, a value)', () => {
    expect(redactSecrets(`password=[${'A'.repeat(16)}:x]`)).toBe('password=[REDACTED:password]');
    // Otherwise the value stops before the `]`, which stays.
    expect(redactSecrets(`password=[${'A'.repeat(17)}:x]`)).toBe('password=[REDACTED:password]]');
    expect(redactSecrets('password=[redacted:x]')).toBe('password=[REDACTED:password]]');
    expect(redactSecrets('password=[A:]')).toBe('password=[REDACTED:password]]');
    expect(redactSecrets(`password=[A:${'x'.repeat(1_024)}]`)).toBe('password=[REDACTED:password]');
    expect(redactSecrets(`password=[A:${'x'.repeat(1_025)}]`)).toBe('password=[REDACTED:password]xxxx]');
  });
});

describe('redactSecrets: whitespace of any width around the separator and after the scheme', () => {
  // Aligned configuration dumps and column-formatted logs put any number of spaces or tabs there; a bound on them was
  // a way around the redaction (`Authorization: Bearer` and five spaces sent the token on).
  const long = token(24);
  it.each([
    [`Authorization: Bearer      ${long}`, 'Authorization: Bearer      [REDACTED:bearer]'],
    [`Authorization:${' '.repeat(200)}Bearer ${long}`, `Authorization:${' '.repeat(200)}Bearer [REDACTED:bearer]`],
    [
      `authorization =\t\t\t\t\tBasic\t\t\t\t\tdXNlcjpwYXNz`,
      'authorization =\t\t\t\t\tBasic\t\t\t\t\t[REDACTED:basic]',
    ],
    [`upstream sent Bearer${' '.repeat(40)}${long}`, `upstream sent Bearer${' '.repeat(40)}[REDACTED:bearer]`],
    [`db.password${' '.repeat(30)}= hunter2`, `db.password${' '.repeat(30)}= [REDACTED:password]`],
    [
      'spring.datasource.password\t\t\t\t:\t\t\t\thunter2',
      'spring.datasource.password\t\t\t\t:\t\t\t\t[REDACTED:password]',
    ],
    [`"api_key"    :     "abc"`, '"api_key"    :     "[REDACTED:api_key]"'],
    [
      `client_secret${' '.repeat(500)}=>${' '.repeat(500)}abc`,
      `client_secret${' '.repeat(500)}=>${' '.repeat(500)}[REDACTED:secret]`,
    ],
  ])('redacts %j', (text, redacted) => {
    expect(redactSecrets(text)).toBe(redacted);
  });

  it('finishes on a 16 KiB text of keys and whitespace that never reach a value (no backtracking blow-up)', () => {
    const text = 'password '.repeat(1_820) + ' '.repeat(16);
    expect(redactSecrets(text)).toBe(text);
    const spaced = `password${' '.repeat(16_000)}`;
    expect(redactSecrets(spaced)).toBe(spaced);
    const authorization = `Authorization:${' '.repeat(16_000)}Bearer${' '.repeat(200)}`;
    expect(redactSecrets(authorization)).toBe(`Authorization:${' '.repeat(16_000)}[REDACTED:bearer]${' '.repeat(200)}`);
  });
});

describe('redactSecrets: JWTs', () => {
  it('takes the JWT alphabet exactly: letters, digits, _ and - (the class edges included)', () => {
    const jwt = 'eyJ09AZaz_-.eyJ9AZaz0_-.09AZaz_-';
    expect(redactSecrets(`t ${jwt} e`)).toBe('t [REDACTED:jwt] e');
    for (const edge of ['/', ':', '@', '[', '`', '{', '.']) {
      expect(redactSecrets(`t ${jwt}${edge}x`)).toBe(`t [REDACTED:jwt]${edge}x`);
      expect(redactSecrets(`t eyJabcd${edge}.eyJab.s`)).toBe(`t eyJabcd${edge}.eyJab.s`);
      expect(redactSecrets(`t ${edge}eyJabcd.eyJab.s`)).toBe(`t ${edge}[REDACTED:jwt]`);
    }
    for (const word of ['0', '9', 'A', 'Z', 'a', 'z', '_']) {
      expect(redactSecrets(`t ${word}eyJabcd.eyJab.s`)).toBe(`t ${word}eyJabcd.eyJab.s`);
    }
    expect(redactSecrets('eyJabcd.eyJab.')).toBe('[REDACTED:jwt]');
    expect(redactSecrets('eyJabc.eyJab.s')).toBe('eyJabc.eyJab.s');
    expect(redactSecrets('eyJabcd.eyJa.s')).toBe('eyJabcd.eyJa.s');
    expect(redactSecrets('eyJabcd.eyJab-s')).toBe('eyJabcd.eyJab-s');
  });

  it('redacts each of several JWTs and keeps the text between them', () => {
    expect(redactSecrets('a eyJabcd.eyJab.s1 b eyJefgh.eyJcd.s2 c')).toBe('a [REDACTED:jwt] b [REDACTED:jwt] c');
    expect(redactSecrets('eyJabcd.eyJab.s1.eyJcd.s2')).toBe('[REDACTED:jwt].eyJcd.s2');
  });

  it('starts a JWT at the leftmost eyJ of its header, within 8 KiB of the dot', () => {
    expect(redactSecrets('-eyJeyJabcd.eyJab.s')).toBe('-[REDACTED:jwt]');
    const header = `eyJ${'a'.repeat(8_189)}`;
    expect(redactSecrets(`${'b'.repeat(10)}-${header}.eyJab.s`)).toBe(`${'b'.repeat(10)}-[REDACTED:jwt]`);
    expect(redactSecrets(`-${header}bcde.eyJab.s`)).toBe(`-${header}bcde.eyJab.s`);
    const payload = `eyJ${'p'.repeat(8_192)}`;
    expect(redactSecrets(`eyJabcd.${payload}.s`)).toBe('[REDACTED:jwt]');
    expect(redactSecrets(`eyJabcd.${payload}p.s`)).toBe(`eyJabcd.${payload}p.s`);
    expect(redactSecrets(`eyJabcd.eyJab.${'s'.repeat(8_193)}`)).toBe('[REDACTED:jwt]s');
  });
});

describe('redactSecrets: PEM blocks', () => {
  const body = '\nMIIE+/=:-\tAZaz09\n';

  it('keeps the header and footer of a block and redacts its body, wherever the block is', () => {
    const block = (name: string) => `-----BEGIN ${name}-----${body}-----END ${name}-----`;
    const redacted = (name: string) => `-----BEGIN ${name}-----[REDACTED:pem]-----END ${name}-----`;
    expect(redactSecrets(block('RSA PRIVATE KEY'))).toBe(redacted('RSA PRIVATE KEY'));
    expect(redactSecrets(`a ${block('A')}${block('B2')} b`)).toBe(`a ${redacted('A')}${redacted('B2')} b`);
    expect(redactSecrets(`${block('A')} ${block('A')}`)).toBe(`${redacted('A')} ${redacted('A')}`);
    const name = 'K'.repeat(40);
    expect(redactSecrets(block(name))).toBe(redacted(name));
    expect(redactSecrets(block(`${name}K`))).toBe(block(`${name}K`));
    expect(redactSecrets(block('ec key'))).toBe(block('ec key'));
    expect(redactSecrets('-----BEGIN -----x-----END -----')).toBe('-----BEGIN -----x-----END -----');
  });

  it('redacts what looks like a PEM body after a header without its footer, up to the first other character', () => {
    expect(redactSecrets(`-----BEGIN PRIVATE KEY-----${body}。日志结束`)).toBe(
      '-----BEGIN PRIVATE KEY-----[REDACTED:pem]。日志结束',
    );
    for (const stop of ['.', '"', '_', '!', 'é']) {
      expect(redactSecrets(`x -----BEGIN A-----${body}${stop}after`)).toBe(
        `x -----BEGIN A-----[REDACTED:pem]${stop}after`,
      );
    }
    expect(redactSecrets('-----BEGIN A-----')).toBe('-----BEGIN A-----[REDACTED:pem]');
    // A footer of another name is body; the same missing footer stays missing for a later header.
    expect(redactSecrets('-----BEGIN A-----ab。-----BEGIN A-----cd。-----BEGIN B-----x-----END B-----')).toBe(
      '-----BEGIN A-----[REDACTED:pem]。-----BEGIN A-----[REDACTED:pem]。-----BEGIN B-----[REDACTED:pem]-----END B-----',
    );
    expect(redactSecrets('-----BEGIN A-----ab-----END B-----。')).toBe('-----BEGIN A-----[REDACTED:pem]。');
  });
});

describe('redactSecrets: text without secrets', () => {
  it.each([
    '',
    'ERROR order 42 failed: timeout after 30 s',
    '订单 42 处理失败',
    'Basic authentication failed for user bob',
    'see https://example.com/path?q=1',
    'eyJ is how a JWT starts',
    'AKIA alone',
  ])('leaves %j as it is', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });
});

// NOTE: the cache of key names and the gates before each pattern change no result, only the work done: these tests
// watch that work through spies on the built-in methods the module calls (the spies call through), so an unbounded
// cache, a name looked up again and again, or a pattern run over every text is a failure, not an equivalent mutant.
describe('the work redaction does', () => {
  it('looks a name of up to 64 characters up once, a longer one each time, and forgets all at 4,096', async () => {
    vi.resetModules();
    const fresh = await import('../../../../../packages/core/src/tools/masking/secret-redaction.ts');
    const lowered = vi.spyOn(String.prototype, 'toLowerCase');
    const lookUps = (key: string) => {
      const before = lowered.mock.calls.length;
      fresh.secretKindOfKey(key);
      return lowered.mock.calls.length - before;
    };
    try {
      expect([lookUps('db_password'), lookUps('db_password')]).toEqual([1, 0]);
      const longest = `${'x'.repeat(59)}token`;
      expect([lookUps(longest), lookUps(longest)]).toEqual([1, 0]);
      expect([lookUps(`${longest}s`), lookUps(`${longest}s`)]).toEqual([1, 1]);
      for (let index = 0; index < 4_094; index += 1) fresh.secretKindOfKey(`name_${index}`);
      // 4,096 names held: the next new one clears them all first, then is held alone.
      expect(lookUps('db_password')).toBe(0);
      expect(lookUps('one_more')).toBe(1);
      expect([lookUps('db_password'), lookUps('one_more')]).toEqual([1, 0]);
    } finally {
      lowered.mockRestore();
    }
  });

  it('runs no pattern over a text that holds none of the characters each one needs', () => {
    const replaced = vi.spyOn(String.prototype, 'replace');
    const searched = vi.spyOn(String.prototype, 'indexOf');
    const executed = vi.spyOn(RegExp.prototype, 'exec');
    try {
      for (const text of ['订单 42 处理失败', 'ERROR order 42 failed after 30 s, retrying (attempt 2 of 3)']) {
        expect(redactSecrets(text)).toBe(text);
      }
      expect(replaced).not.toHaveBeenCalled();
      expect(searched).not.toHaveBeenCalled();
      expect(executed.mock.contexts.filter((pattern) => (pattern as RegExp).source.includes('BEGIN'))).toEqual([]);
    } finally {
      replaced.mockRestore();
      searched.mockRestore();
      executed.mockRestore();
    }
  });

  it('searches for a missing PEM footer once, not again for each later header of that name', () => {
    const searched = vi.spyOn(String.prototype, 'indexOf');
    try {
      const text = '-----BEGIN A-----ab。-----BEGIN A-----cd。-----BEGIN A-----ef。';
      expect(redactSecrets(text)).toBe('-----BEGIN A-----[REDACTED:pem]。'.repeat(3));
      expect(searched.mock.calls.filter(([searchFor]) => searchFor === '-----END A-----')).toHaveLength(1);
    } finally {
      searched.mockRestore();
    }
  });
});
