/**
 * The secrets layer: always on, irreversible. Each secret becomes a typed marker (`[REDACTED:jwt]`) and the text
 * around it is kept (`password=[REDACTED:password]`, `Bearer [REDACTED:bearer]`, `mysql://app:[REDACTED:password]@db`).
 * NOTE: every pattern here is linear in practice: no nested unbounded quantifier, every repetition bounded, and the
 * PEM scan is a plain index search; test/unit/core/tools/masking runs them on long hostile inputs.
 */

/** The kinds of secret marker this layer writes. */
export const SECRET_KINDS = Object.freeze([
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
] as const);
export type SecretKind = (typeof SECRET_KINDS)[number];

export const redactionMarker = (kind: SecretKind) => `[REDACTED:${kind}]`;

/**
 * The secret patterns, built per call of {@link redactSecrets} (V8 compiles each literal once): each call gets its own
 * global patterns, and their mutants are tested by the tests that redact, not by reloading every masking test
 * (docs/development.md, Mutation testing).
 */
const secretPatterns = () => ({
  vendorTokens: [
    /\bgh[pousr]_[A-Za-z0-9]{30,255}\b/g,
    /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g,
    /\bxox[abposr]-[A-Za-z0-9-]{10,255}\b/g,
    /\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,255}\b/g,
    /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,255}\b/g,
    /\bAIza[0-9A-Za-z_-]{35}\b/g,
    /\bnpm_[A-Za-z0-9]{36}\b/g,
    /\bglpat-[A-Za-z0-9_-]{20,64}\b/g,
  ],
  awsAccessKeyId: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g,
  urlPassword: /\b([A-Za-z][A-Za-z0-9+.-]{1,20}:\/\/[^\s/@:]{0,256}:)([^\s/@]{1,256})@/g,
  authorizationValue:
    /\b((?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|digest|token|negotiate)\s+)?)([^\s"',;]{1,4096})/gi,
  bearer: /\b([Bb]earer\s+)([A-Za-z0-9._~+/=-]{16,4096})/g,
  basic: /\b(Basic\s+)([A-Za-z0-9+/]{8,4096}={0,2})(?![A-Za-z0-9+/=])/g,
  /**
   * `key=value`, `key: value`, `"key":"value"`, `key => value`: the key decides (see {@link secretKindOfKey}). A value
   * in brackets (`password=[REDACTED:hunter2]`) is taken whole, so a look-alike marker leaves no `]` behind.
   */
  keyValue:
    /(?<![A-Za-z0-9_.-])([A-Za-z][A-Za-z0-9_.-]{0,63})(["']?\s*(?::|=>|=)\s*["']?)(\[[A-Z]{1,16}:[^\s\]]{1,1024}\]|[^\s"'&,;}\]<>]{1,1024})/g,
  awsKeyPrefix: /A(?:KI|SI|BI|CC)A/,
  vendorPrefix: /gh[pousr]_|github_pat_|xox[abposr]-|[sr]k_(?:live|test)_|sk-|AIza|npm_|glpat-/,
  authScheme: /^(?:bearer|basic|digest|token|negotiate)$/i,
});

/**
 * The secret kind a field or key name stands for (`password`, `db_password`, `apiKey`, `access_token`,
 * `SecretAccessKey`), or null. NOTE: the name must END with the secret's word, so `token_count`, `max_tokens`,
 * `password_length` or `secret_arn` are not secrets.
 */
export function secretKindOfKey(key: string): SecretKind | null {
  const known = secretKindsByKey.get(key);
  if (known !== undefined) return known;
  const kind = findSecretKindOfKey(key);
  // NOTE: field names repeat in every line, row and run (`message`, `trace_id`, a table's columns): each is looked
  // up once per process. Bounded: only short names are kept, and the cache is cleared when full.
  if (key.length <= 64) {
    if (secretKindsByKey.size >= 4_096) secretKindsByKey.clear();
    secretKindsByKey.set(key, kind);
  }
  return kind;
}

const secretKindsByKey = new Map<string, SecretKind | null>();

function findSecretKindOfKey(key: string): SecretKind | null {
  const normalized = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (normalized.length === 0 || normalized.length > 64) return null;
  // NOTE: built per look-up, not at module level: its mutants are then tested by the tests that look keys up, not by
  // reloading every masking test (docs/development.md, Mutation testing); each name is looked up once (cached above).
  // The first ending that fits decides: `secretaccesskey` comes before `accesskey`.
  const endings: readonly [string, SecretKind][] = [
    ['password', 'password'],
    ['passwd', 'password'],
    ['pwd', 'password'],
    ['passphrase', 'password'],
    ['secretaccesskey', 'aws_secret_key'],
    ['secret', 'secret'],
    ['secretkey', 'secret'],
    ['privatekey', 'secret'],
    ['apikey', 'api_key'],
    ['accesskey', 'api_key'],
    ['token', 'token'],
    ['sessionid', 'token'],
    ['cookie', 'token'],
    ['credential', 'secret'],
    ['credentials', 'secret'],
    ['authorization', 'token'],
    ['signature', 'secret'],
  ];
  for (const [ending, kind] of endings) {
    if (normalized.endsWith(ending)) return kind;
  }
  return null;
}

/**
 * `text` with every secret replaced by its typed marker. NOTE: each pattern runs only when the text holds the
 * characters it cannot match without (a plain `ERROR` or a Chinese sentence costs a few `includes`), never as a
 * heuristic that could skip a secret.
 */
export function redactSecrets(text: string): string {
  if (text.length === 0) return text;
  const patterns = secretPatterns();
  let result = redactPemBlocks(text);
  if (result.includes('.eyJ')) result = redactJwts(result);
  if (patterns.awsKeyPrefix.test(result))
    result = result.replace(patterns.awsAccessKeyId, redactionMarker('aws_access_key'));
  if (patterns.vendorPrefix.test(result)) {
    for (const pattern of patterns.vendorTokens) result = result.replace(pattern, redactionMarker('vendor_token'));
  }
  if (result.includes('://')) {
    result = result.replace(patterns.urlPassword, (_match, head: string) => `${head}${redactionMarker('password')}@`);
  }
  if (/authorization/i.test(result)) {
    result = result.replace(patterns.authorizationValue, (match, head: string, value: string) =>
      isMarker(value) ? match : `${head}${redactionMarker(/basic\s/i.test(head) ? 'basic' : 'bearer')}`,
    );
  }
  if (/[Bb]earer/.test(result)) {
    result = result.replace(patterns.bearer, (match, head: string, value: string) =>
      isMarker(value) ? match : `${head}${redactionMarker('bearer')}`,
    );
  }
  if (result.includes('Basic')) {
    result = result.replace(patterns.basic, (match, head: string, value: string) =>
      /[0-9+/=]/.test(value) ? `${head}${redactionMarker('basic')}` : match,
    );
  }
  if (result.includes('=') || result.includes(':')) {
    result = result.replace(patterns.keyValue, (match, key: string, separator: string, value: string) => {
      const kind = secretKindOfKey(key);
      // An auth scheme's name is not the credential (that follows it, redacted above).
      if (kind === null || isMarker(value) || patterns.authScheme.test(value)) return match;
      return `${key}${separator}${redactionMarker(kind)}`;
    });
  }
  return result;
}

/** The longest JWT segment this layer recognises (longer ones are not a token anyone sends in a header). */
const JWT_SEGMENT_CHARS = 8_192;
const isJwtChar = (code: number) =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 45;
const isWordChar = (code: number) => isJwtChar(code) && code !== 45;

/**
 * Every JWT (`eyJ…` header `.eyJ…` payload `.` signature, base64url segments of at most 8 KiB, the header starting at a
 * word boundary) replaced by its marker: what `/\beyJ[A-Za-z0-9_-]{4,8192}\.eyJ[A-Za-z0-9_-]{2,8192}\.[A-Za-z0-9_-]{0,8192}/g`
 * matches, found in linear time. NOTE: that regex is not linear: `-` is in the alphabet and makes a word boundary
 * before every `eyJ` of `eyJa-eyJa-…`, each a start that scans 8 KiB before it fails (a 64 KiB line took 2 s). Here
 * each `.eyJ` is a candidate: the header is the dot-free run before it (its leftmost `eyJ` at a boundary), then the
 * payload and the signature after it, so each run of the text is read by at most three candidates.
 */
function redactJwts(text: string): string {
  const marker = redactionMarker('jwt');
  let output = '';
  let copied = 0;
  let from = 0;
  for (;;) {
    const dot = text.indexOf('.eyJ', from);
    if (dot === -1) break;
    from = dot + 1;
    let runStart = dot;
    const lowest = Math.max(copied, dot - 3 - JWT_SEGMENT_CHARS);
    while (runStart > lowest && isJwtChar(text.charCodeAt(runStart - 1))) runStart -= 1;
    let start = -1;
    for (let index = runStart; index <= dot - 7; index += 1) {
      if (text.startsWith('eyJ', index) && (index === 0 || !isWordChar(text.charCodeAt(index - 1)))) {
        start = index;
        break;
      }
    }
    if (start === -1) continue;
    const payload = dot + 4;
    let payloadEnd = payload;
    while (
      payloadEnd < text.length &&
      payloadEnd - payload < JWT_SEGMENT_CHARS &&
      isJwtChar(text.charCodeAt(payloadEnd))
    ) {
      payloadEnd += 1;
    }
    if (payloadEnd - payload < 2 || text.charCodeAt(payloadEnd) !== 46) continue;
    const signature = payloadEnd + 1;
    let end = signature;
    while (end < text.length && end - signature < JWT_SEGMENT_CHARS && isJwtChar(text.charCodeAt(end))) end += 1;
    output += text.slice(copied, start) + marker;
    copied = end;
    from = end;
  }
  return copied === 0 ? text : output + text.slice(copied);
}

/**
 * Whether a value after a secret's key is this layer's own marker (`[REDACTED:password]`, or `[REDACTED:password`
 * where the value's pattern stops before `]`), so masking twice changes nothing. NOTE (issue 32, item 7): only a
 * marker of a known kind: `password=[REDACTED:hunter2]` is a password written inside a look-alike, and is redacted.
 */
function isMarker(value: string): boolean {
  const kind = /^\[REDACTED:([a-z_]{1,24})\]?$/.exec(value)?.[1];
  return kind !== undefined && (SECRET_KINDS as readonly string[]).includes(kind);
}

/**
 * PEM blocks: the header and footer are kept, the body becomes `[REDACTED:pem]`. A block without its END line (cut by
 * the source) loses everything after its header that looks like a PEM body. Linear: one index search per header.
 */
function redactPemBlocks(text: string): string {
  if (!text.includes('-----BEGIN ')) return text;
  let output = '';
  let position = 0;
  // NOTE: a footer missing once is missing for every later header of that name: it is never searched for again.
  const missingFooters = new Set<string>();
  const pemBegin = /-----BEGIN ([A-Z0-9 ]{1,40})-----/g;
  const base64Run = /[A-Za-z0-9+/=\s:-]/;
  for (let match = pemBegin.exec(text); match !== null; match = pemBegin.exec(text)) {
    const headerEnd = match.index + match[0].length;
    if (match.index < position) continue;
    const footer = `-----END ${match[1]}-----`;
    const footerAt = missingFooters.has(footer) ? -1 : text.indexOf(footer, headerEnd);
    if (footerAt < 0) missingFooters.add(footer);
    let bodyEnd: number;
    let tail: string;
    if (footerAt >= 0) {
      bodyEnd = footerAt + footer.length;
      tail = footer;
    } else {
      bodyEnd = headerEnd;
      while (bodyEnd < text.length && base64Run.test(text.charAt(bodyEnd))) bodyEnd += 1;
      tail = '';
    }
    output += `${text.slice(position, headerEnd)}${redactionMarker('pem')}${tail}`;
    position = bodyEnd;
    pemBegin.lastIndex = bodyEnd;
  }
  return output + text.slice(position);
}
