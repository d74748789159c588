/**
 * Reading kubectl's text output as Cloud-OpsBench stores it in `k8s_states.json`: the aligned tables of `kubectl get`
 * (each column starts where its header word starts), the `Events:` table at the end of a `kubectl describe`, the
 * `key: value` fields of a describe, and kubectl's relative ages (`27s`, `4m57s`, `2d3h`, `84s (x5 over 4m57s)`).
 * NOTE: pure functions of text; bounded by the callers' limits on the text itself.
 */

export type TableRow = Record<string, string>;

/**
 * Rows of a kubectl table: the first non-empty line is the header; a column spans from its header word's start to the
 * next one's. Header words are separated by two or more spaces (`LAST SEEN`, `NOMINATED NODE` stay one column).
 */
export function parseTable(text: string): TableRow[] {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const header = lines[0];
  if (header === undefined || !/^[A-Z]/.test(header)) return [];
  const columns: { name: string; start: number }[] = [];
  for (const match of header.matchAll(/\S+(?: \S+)*/g)) columns.push({ name: match[0], start: match.index });
  const rows: TableRow[] = [];
  for (const line of lines.slice(1)) {
    const row: TableRow = {};
    columns.forEach((column, index) => {
      const end = columns[index + 1]?.start ?? line.length;
      // NOTE: a value wider than its column pushes the rest right; the last column takes what is left.
      row[column.name] = (
        index === columns.length - 1 ? line.slice(column.start) : line.slice(column.start, end)
      ).trim();
    });
    rows.push(row);
  }
  return rows;
}

export interface DescribedEvent {
  type: string;
  reason: string;
  /** Seconds since the event was last seen (at the describe's time); undefined when unknown. */
  ageSeconds: number | undefined;
  /** kubectl's count note, e.g. `x10 over 3m55s`. */
  repeat: string | undefined;
  message: string;
}

/** The rows of a describe's `Events:` table (`<none>` or absent: none). */
export function describedEvents(text: string): DescribedEvent[] {
  const start = text.search(/^Events:/m);
  if (start === -1) return [];
  const section = text.slice(start).split('\n').slice(1);
  const header = section[0];
  if (header === undefined || !/^\s+Type\s+Reason\s+Age/.test(header)) return [];
  const messageAt = header.indexOf('Message');
  const ageAt = header.indexOf('Age');
  const fromAt = header.indexOf('From');
  const events: DescribedEvent[] = [];
  for (const line of section.slice(2)) {
    if (line.trim() === '' || !line.startsWith('  ')) break;
    const [type = '', reason = ''] = line.trim().split(/\s+/);
    const ageText = line.slice(ageAt, fromAt === -1 ? messageAt : fromAt).trim();
    const repeat = /\((x\d+ over [^)]+)\)/.exec(ageText)?.[1];
    events.push({
      type,
      reason,
      ageSeconds: ageSeconds(ageText.split(' ')[0] ?? ''),
      repeat,
      message: messageAt === -1 ? '' : line.slice(messageAt).trim(),
    });
  }
  return events;
}

/** `2d3h`, `4m57s`, `27s`, `60m` in seconds; undefined for `<unknown>`, `<invalid>` or anything else. */
export function ageSeconds(age: string): number | undefined {
  if (!/^(?:\d+[dhms])+$/.test(age)) return undefined;
  let total = 0;
  for (const match of age.matchAll(/(\d+)([dhms])/g)) {
    const unit = match[2] === 'd' ? 86_400 : match[2] === 'h' ? 3_600 : match[2] === 'm' ? 60 : 1;
    total += Number(match[1]) * unit;
  }
  return total;
}

/** The value of a top-level describe field (`Selector:  app=x`), or undefined. */
export function describedField(text: string, name: string): string | undefined {
  const match = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:[ \\t]*(.*)$`, 'm').exec(text);
  return match?.[1]?.trim();
}

/**
 * The rows of a describe's `Conditions:` table (`Type Status … Reason Message`): each condition's type, status and
 * reason.
 */
export function describedConditions(text: string): { type: string; status: string; reason: string }[] {
  const start = text.search(/^Conditions:/m);
  if (start === -1) return [];
  const section = text.slice(start).split('\n').slice(1);
  const header = section[0] ?? '';
  const reasonAt = header.indexOf('Reason');
  const conditions: { type: string; status: string; reason: string }[] = [];
  for (const line of section.slice(1)) {
    if (!line.startsWith('  ') || line.trim() === '') break;
    if (/^\s+-+/.test(line)) continue;
    const [type = '', status = ''] = line.trim().split(/\s+/);
    const reason =
      reasonAt === -1
        ? ''
        : (line
            .slice(reasonAt)
            .trim()
            .split(/\s{2,}/)[0] ?? '');
    conditions.push({ type, status, reason });
  }
  return conditions;
}

/** Each container block of a pod's describe (`Containers:` and `Init Containers:`) as its fields. */
export function describedContainers(text: string): { name: string; init: boolean; fields: Map<string, string> }[] {
  const containers: { name: string; init: boolean; fields: Map<string, string> }[] = [];
  const lines = text.split('\n');
  let section: 'none' | 'init' | 'main' = 'none';
  let current: { name: string; init: boolean; fields: Map<string, string> } | undefined;
  let lastKey = '';
  for (const line of lines) {
    if (/^Init Containers:/.test(line)) section = 'init';
    else if (/^Containers:/.test(line)) section = 'main';
    else if (/^\S/.test(line)) section = 'none';
    if (section === 'none') continue;
    const block = /^ {2}(\S[^:]*):\s*$/.exec(line);
    if (block !== null) {
      current = { name: block[1] ?? '', init: section === 'init', fields: new Map() };
      containers.push(current);
      lastKey = '';
      continue;
    }
    const field = /^ {4}(\S[^:]*):\s*(.*)$/.exec(line);
    if (field !== null && current !== undefined) {
      lastKey = field[1] ?? '';
      current.fields.set(lastKey, field[2]?.trim() ?? '');
      continue;
    }
    const detail = /^ {6}(\S[^:]*):\s*(.*)$/.exec(line);
    if (detail !== null && current !== undefined && lastKey !== '') {
      current.fields.set(`${lastKey}.${detail[1]}`, detail[2]?.trim() ?? '');
    }
  }
  return containers;
}
