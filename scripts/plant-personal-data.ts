/**
 * Plants SYNTHETIC personal data in the eval corpus's worlds (issue 22), where real logs would have it, and writes
 * what it planted beside each world: `world/personal-data.json`, the manifest the masking accuracy figures read
 * (`bench/masking-accuracy.ts`) and a test checks against the files (test/unit/eval/personal-data.test.ts).
 *
 * Every value is made up here from a seeded generator (the same run plants the same values): Chinese mobile numbers
 * (bare and +86), E.164 numbers of other countries, e-mail addresses at example domains, client IPv4 and IPv6
 * addresses (IPv6 from the documentation range), UnionPay card numbers with a valid Luhn digit, resident ids with a
 * valid ISO 7064 check digit, AWS account ids in ARNs, EC2 instance ids, customer ids (a deployment pattern's kind)
 * and one secret a service logs: a bearer token in an error line, or an SFTP password in a URL. Nothing is a real person's.
 *
 * What changes: customer-facing log lines (orders, payments, refunds, carts, searches, callbacks, risk checks) get
 * `user_phone=… client_ip=…`-style fields appended to their message; the first error line of a service gets the
 * request's `Authorization` header (a settlement service without errors: its SFTP source URL); each world's first runbook ends with an escalation contact. Nothing is removed
 * and no line is added, so every query's counts and every scripted statement stay true. A world that has a manifest
 * is left as it is (run once; `--force` is not offered: re-planting would plant twice).
 *
 * Run: `node scripts/plant-personal-data.ts` (then `npm run eval` must score as before).
 * NOTE: over 300 lines on purpose: one planting of synthetic personal data: the generators, templates and the manifest
 * they write must agree, so they live together.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PlantedValue {
  /** The masking kind that should take it: an identifier kind, a deployment pattern's kind, or a secret's. */
  kind: string;
  value: string;
  /** The world's file it was planted in, relative to the world folder. */
  file: string;
}

export interface PersonalDataManifest {
  synthetic: true;
  description: string;
  values: PlantedValue[];
}

const SCENARIOS = 'eval/scenarios';

/** mulberry32: a small seeded generator, so a world's values are the same on every run of this script. */
function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
  const digits = (count: number) => Array.from({ length: count }, () => String(int(0, 9))).join('');
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T;
  return { next, int, digits, pick };
}

function hashOf(text: string): number {
  let hash = 2_166_136_261;
  for (const char of text) hash = Math.imul(hash ^ char.charCodeAt(0), 16_777_619);
  return hash >>> 0;
}

function luhnDigit(body: string): string {
  let sum = 0;
  for (let index = 0; index < body.length; index += 1) {
    let digit = Number(body[body.length - 1 - index]);
    if (index % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return String((10 - (sum % 10)) % 10);
}

function residentIdCheck(body: string): string {
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = weights.reduce((total, weight, index) => total + weight * Number(body[index]), 0);
  return '10X98765432'.charAt(sum % 11);
}

type Random = ReturnType<typeof seeded>;
const SURNAMES = ['wang', 'li', 'zhang', 'liu', 'chen', 'yang', 'zhao', 'huang', 'zhou', 'wu'];
const GIVEN = ['wei', 'fang', 'min', 'jing', 'lei', 'yan', 'jun', 'tao', 'ming', 'xia'];

const make = {
  mobile: (r: Random) => `1${r.pick(['3', '5', '7', '8', '9'])}${r.digits(9)}`,
  plus86: (r: Random) => `+86${make.mobile(r)}`,
  e164: (r: Random) => r.pick(['+4420', '+6565', '+8190', '+4915']) + r.digits(8),
  email: (r: Random) =>
    `${r.pick(SURNAMES)}.${r.pick(GIVEN)}${r.int(1, 99)}@${r.pick(['example.cn', 'mail.example.com', 'example.net'])}`,
  ipv4: (r: Random) =>
    `${r.pick([36, 58, 101, 112, 113, 117, 183, 203, 222])}.${r.int(1, 254)}.${r.int(0, 255)}.${r.int(1, 254)}`,
  ipv6: (r: Random) =>
    `2001:db8:${r.int(1, 0xffff).toString(16)}:${r.int(1, 0xffff).toString(16)}::${r.int(1, 0xfff).toString(16)}`,
  card: (r: Random) => {
    const body = `62${r.pick(['2202', '2848', '1700', '1483'])}${r.digits(9)}`;
    return body + luhnDigit(body);
  },
  residentId: (r: Random) => {
    const birth = `${r.int(1965, 2002)}${String(r.int(1, 12)).padStart(2, '0')}${String(r.int(1, 28)).padStart(2, '0')}`;
    const body = `${r.pick(['110101', '310104', '440305', '330106', '510107'])}${birth}${r.digits(3)}`;
    return body + residentIdCheck(body);
  },
  account: (r: Random) => `${r.int(1, 9)}${r.digits(11)}`,
  instance: (r: Random) => `i-0${Array.from({ length: 16 }, () => r.int(0, 15).toString(16)).join('')}`,
  customer: (r: Random) => `CUST-${r.int(100000, 999999)}`,
  token: (r: Random) =>
    Array.from({ length: 40 }, () => r.pick([...'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789'])).join(''),
};

/** One suffix of fields for a customer-facing line, and the values in it (kinds as the masker names them). */
type Template = (r: Random) => { text: string; values: { kind: string; value: string }[] };
const TEMPLATES: readonly Template[] = [
  (r) => {
    const phone = make.mobile(r);
    const ip = make.ipv4(r);
    return {
      text: ` user_phone=${phone} client_ip=${ip}`,
      values: [
        { kind: 'phone', value: phone },
        { kind: 'ipv4', value: ip },
      ],
    };
  },
  (r) => {
    const email = make.email(r);
    const customer = make.customer(r);
    return {
      text: ` customer_id=${customer} notify_email=${email}`,
      values: [
        { kind: 'customer_id', value: customer },
        { kind: 'email', value: email },
      ],
    };
  },
  (r) => {
    const phone = make.plus86(r);
    const ip = make.ipv6(r);
    return {
      text: ` contact=${phone} client_ip=${ip}`,
      values: [
        { kind: 'phone', value: phone },
        { kind: 'ipv6', value: ip },
      ],
    };
  },
  (r) => {
    const card = make.card(r);
    const ip = make.ipv4(r);
    return {
      text: ` card_no=${card} client_ip=${ip}`,
      values: [
        { kind: 'bank_card', value: card },
        { kind: 'ipv4', value: ip },
      ],
    };
  },
  (r) => {
    const id = make.residentId(r);
    const phone = make.e164(r);
    return {
      text: ` id_no=${id} intl_phone=${phone}`,
      values: [
        { kind: 'cn_id', value: id },
        { kind: 'phone', value: phone },
      ],
    };
  },
  (r) => {
    const account = make.account(r);
    const instance = make.instance(r);
    return {
      text: ` event_topic=arn:aws-cn:sns:cn-north-1:${account}:customer-events host=${instance}`,
      values: [
        { kind: 'aws_account', value: account },
        { kind: 'aws_id', value: instance.slice(2) },
      ],
    };
  },
];

/** Customer-facing lines: where a real service logs who the request was for. */
const CUSTOMER_LINE =
  /^(?:order (?:created|paid)|payment (?:succeeded|callback processed)|refund (?:request accepted|succeeded)|cart item added|add to cart|search ok|risk check (?:passed|rejected|review)|stock reserved|invoice issued|sign request|callback signature verified|create order failed|issue invoice failed|search request failed|bank statement imported|payout file generated)/;
/** One in this many customer-facing lines is planted: enough to be everywhere, few enough to keep lines short. */
const EVERY = 6;

function plantLogs(world: string, file: string, random: Random, planted: PlantedValue[]): void {
  const path = join(world, file);
  const lines = readFileSync(path, 'utf8').split('\n');
  let candidates = 0;
  let tokenPlanted = false;
  const out = lines.map((line) => {
    if (line.trim() === '') return line;
    const row = JSON.parse(line) as { level?: string; message?: string };
    if (typeof row.message !== 'string') return line;
    if (!tokenPlanted && row.level === 'ERROR') {
      tokenPlanted = true;
      const token = make.token(random);
      planted.push({ kind: 'bearer', value: token, file });
      row.message += ` request_headers="Authorization: Bearer ${token}"`;
      return JSON.stringify(row);
    }
    if (!tokenPlanted && row.message.startsWith('bank statement imported')) {
      // A service without errors that logs where it fetched from: the SFTP URL with its password.
      tokenPlanted = true;
      const password = make.token(random).slice(0, 16);
      planted.push({ kind: 'password', value: password, file });
      row.message += ` source=sftp://settle:${password}@sftp.bank.example/statements`;
      return JSON.stringify(row);
    }
    if (!CUSTOMER_LINE.test(row.message)) return line;
    candidates += 1;
    if (candidates % EVERY !== 1) return line;
    const template = TEMPLATES[Math.floor(candidates / EVERY) % TEMPLATES.length] as Template;
    const { text, values } = template(random);
    row.message += text;
    for (const value of values) planted.push({ ...value, file });
    return JSON.stringify(row);
  });
  writeFileSync(path, out.join('\n'));
}

function plantRunbook(world: string, file: string, random: Random, planted: PlantedValue[]): void {
  const path = join(world, file);
  const email = make.email(random);
  const phone = make.mobile(random);
  const text = readFileSync(path, 'utf8').replace(/\n*$/, '\n');
  writeFileSync(path, `${text}\n升级联系人（合成数据）：值班经理 ${email}，电话 ${phone}。\n`);
  planted.push({ kind: 'email', value: email, file }, { kind: 'phone', value: phone, file });
}

export function manifestPath(world: string): string {
  return join(world, 'personal-data.json');
}

function plantWorld(scenario: string): void {
  const world = join(SCENARIOS, scenario, 'world');
  if (!existsSync(world) || existsSync(manifestPath(world))) return;
  const random = seeded(hashOf(scenario));
  const planted: PlantedValue[] = [];
  const logs = join(world, 'logs');
  if (existsSync(logs)) {
    for (const name of readdirSync(logs)
      .filter((entry) => entry.endsWith('.jsonl'))
      .sort()) {
      plantLogs(world, `logs/${name}`, random, planted);
    }
  }
  const knowledge = join(world, 'knowledge');
  const [runbook] = existsSync(knowledge)
    ? readdirSync(knowledge)
        .filter((entry) => entry.endsWith('.md'))
        .sort()
    : [];
  if (runbook !== undefined) plantRunbook(world, `knowledge/${runbook}`, random, planted);
  if (planted.length === 0) return;
  const manifest: PersonalDataManifest = {
    synthetic: true,
    description:
      'SYNTHETIC personal data planted by scripts/plant-personal-data.ts where real logs would have it; no value is a real person’s.',
    values: planted,
  };
  writeFileSync(manifestPath(world), `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`${scenario}: ${planted.length} values planted`);
}

/**
 * The example world's manifest: its generator (scripts/generate-examples.ts) plants phone numbers, client IPs and
 * e-mail addresses behind `user_phone=`, `client_ip=` and `notify_email=`; this lists what is there, so the accuracy
 * figures read both worlds the same way.
 */
function writeExampleManifest(): void {
  const world = 'examples';
  if (existsSync(manifestPath(world))) return;
  const kinds: Record<string, string> = { user_phone: 'phone', client_ip: 'ipv4', notify_email: 'email' };
  const values: PlantedValue[] = [];
  for (const name of readdirSync(join(world, 'logs'))
    .filter((entry) => entry.endsWith('.jsonl'))
    .sort()) {
    for (const line of readFileSync(join(world, 'logs', name), 'utf8')
      .split('\n')
      .filter(Boolean)) {
      const message = String((JSON.parse(line) as { message?: unknown }).message ?? '');
      for (const match of message.matchAll(/\b(user_phone|client_ip|notify_email)=([^\s,;]+)/g)) {
        values.push({ kind: kinds[match[1] ?? ''] ?? 'unknown', value: match[2] ?? '', file: `logs/${name}` });
      }
    }
  }
  const manifest: PersonalDataManifest = {
    synthetic: true,
    description:
      'SYNTHETIC personal data planted by scripts/generate-examples.ts (user_phone=, client_ip=, notify_email=), listed by scripts/plant-personal-data.ts; no value is a real person’s.',
    values,
  };
  writeFileSync(manifestPath(world), `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`examples: ${values.length} values listed`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeExampleManifest();
  for (const scenario of readdirSync(SCENARIOS).filter((name) => statSync(join(SCENARIOS, name)).isDirectory())) {
    plantWorld(scenario);
  }
}
