/**
 * Large log worlds generated at run time, deterministically (a seeded PRNG): `world/logs/generate.json` describes the
 * files, this writes them as JSON lines in the local logs adapter's format, sorted by time. Nothing generated is
 * committed; the same spec always gives the same bytes.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import type { GeneratedLogFile } from './scenario.ts';

/** mulberry32: a small, fast, well-known 32-bit PRNG; enough for synthetic noise, never for anything secret. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const PLACEHOLDER = /\{(int|hex):([^}]{1,40})\}/g;

/** Fills `{int:a-b}` (an integer in [a, b]) and `{hex:n}` (n hex digits, 1–64) from the PRNG. */
export function fillTemplate(template: string, random: () => number): string {
  return template.replace(PLACEHOLDER, (whole, kind: string, argument: string) => {
    if (kind === 'int') {
      const match = /^(-?\d{1,12})-(-?\d{1,12})$/.exec(argument);
      if (match === null) return whole;
      const low = Number(match[1]);
      const high = Number(match[2]);
      if (high < low) return whole;
      return String(low + Math.floor(random() * (high - low + 1)));
    }
    const digits = Number(argument);
    if (!Number.isInteger(digits) || digits < 1 || digits > 64) return whole;
    let out = '';
    for (let index = 0; index < digits; index += 1) out += Math.floor(random() * 16).toString(16);
    return out;
  });
}

interface Line {
  at: number;
  level: string;
  enterpriseId: string;
  message: string;
  traceId?: string;
}

function eventLines(file: GeneratedLogFile, random: () => number): Line[] {
  const lines: Line[] = [];
  for (const event of file.events) {
    const to = Date.parse(event.to);
    for (let at = Date.parse(event.from); at < to; at += event.everyMs) {
      lines.push({
        at,
        level: event.level,
        enterpriseId: event.enterpriseId,
        message: fillTemplate(event.message, random),
        ...(event.traceId === true ? { traceId: fillTemplate('{hex:16}', random) } : {}),
      });
      if (lines.length > file.lines) throw new Error(`${file.name}: the events make more lines than the file has`);
    }
  }
  return lines.sort((a, b) => a.at - b.at);
}

function serialize(line: Line, service: string): string {
  return `${JSON.stringify({
    timestamp: new Date(line.at).toISOString(),
    level: line.level,
    service,
    enterprise_id: line.enterpriseId,
    ...(line.traceId === undefined ? {} : { trace_id: line.traceId }),
    message: line.message,
  })}\n`;
}

/** Writes one generated file into `directory`; returns the number of lines written. */
export async function generateLogFile(file: GeneratedLogFile, directory: string): Promise<number> {
  const random = seededRandom(file.seed);
  const events = eventLines(file, seededRandom(file.seed ^ 0x5bd1e995));
  const noiseCount = file.lines - events.length;
  const start = Date.parse(file.start);
  const span = Date.parse(file.end) - start;
  const totalWeight = file.noise.reduce((sum, entry) => sum + entry.weight, 0);
  const out = createWriteStream(join(directory, file.name), { flags: 'wx' });
  let buffered = '';
  let written = 0;
  let nextEvent = 0;
  const write = async (line: Line) => {
    buffered += serialize(line, file.service);
    written += 1;
    if (buffered.length >= 1 << 16) {
      if (!out.write(buffered)) await once(out, 'drain');
      buffered = '';
    }
  };
  for (let index = 0; index < noiseCount; index += 1) {
    const at = start + Math.floor((index * span) / noiseCount);
    while (nextEvent < events.length && (events[nextEvent] as Line).at <= at) {
      await write(events[nextEvent] as Line);
      nextEvent += 1;
    }
    let pick = random() * totalWeight;
    let entry = file.noise[0] as GeneratedLogFile['noise'][number];
    for (const candidate of file.noise) {
      entry = candidate;
      pick -= candidate.weight;
      if (pick < 0) break;
    }
    await write({
      at,
      level: entry.level,
      enterpriseId: file.enterprises[index % file.enterprises.length] as string,
      message: fillTemplate(entry.message, random),
    });
  }
  while (nextEvent < events.length) {
    await write(events[nextEvent] as Line);
    nextEvent += 1;
  }
  out.end(buffered);
  await once(out, 'finish');
  return written;
}
