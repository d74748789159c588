/**
 * One Cloud-OpsBench case as the logs adapter's world: each container's log (container-log.ts; a `.previous`
 * container's lines merged into its service) and the Kubernetes state (kubernetes-state.ts) as JSON Lines files of
 * `{ timestamp, level, service, message, enterprise_id }`, one file per stream, the window of the case's own times,
 * and the ground truth. Metrics (`metrics.csv`) are not imported: no tool of ours reads a time series.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ContainerLog, formatInstant, type LogEvent, parseContainerLog } from './container-log.ts';
import { buildKubernetesState, KUBERNETES_STREAM } from './kubernetes-state.ts';
import type { CaseFiles } from './opsbench-dataset.ts';

/** The minutes of the case's window before its newest record. */
const WINDOW_MINUTES = 60;

export interface ImportedCase {
  namespace: string;
  /** The zone of the container runtime's prefixes (`+08:00`, `Z`). */
  zone: string;
  /** The case's newest record (epoch ms): the Kubernetes snapshot's time and the window's end. */
  snapshotMs: number;
  window: { start: string; end: string };
  /** The records by stream (service name): the containers' and `kubernetes`. */
  streams: Map<string, LogEvent[]>;
  stats: {
    streams: number;
    records: number;
    lines: number;
    kubectlNotes: number;
    untimedEvents: number;
    /** `.previous` events at or after the current container's first event: repeats, dropped. */
    repeatedPrevious: number;
    kubernetesRecords: number;
  };
}

/** The import of a case, or why it has none (no record carries a time: no window). */
export function importCase(files: CaseFiles): { ok: true; imported: ImportedCase } | { ok: false; detail: string } {
  const zone = caseZone(files.logs);
  const year = caseYear(files.logs);
  const streams = new Map<string, LogEvent[]>();
  let lines = 0;
  let kubectlNotes = 0;
  let untimedEvents = 0;
  let repeatedPrevious = 0;
  const parsedCurrent = new Map<string, ContainerLog>();
  const keys = Object.keys(files.logs).sort();
  for (const key of keys.filter((name) => !name.endsWith('.previous'))) {
    const log = parseContainerLog(files.logs[key] as string | unknown[], { zone, year });
    parsedCurrent.set(key, log);
  }
  for (const key of keys) {
    const previous = key.endsWith('.previous');
    const service = previous ? key.slice(0, -'.previous'.length) : key;
    const current = parsedCurrent.get(service);
    const log = previous
      ? parsePreviousLog(files.logs[key] as string | unknown[], service, parsedCurrent, { zone, year })
      : (parsedCurrent.get(key) as ContainerLog);
    lines += log.stats.lines;
    kubectlNotes += log.stats.kubectlNotes;
    untimedEvents += log.stats.untimedEvents;
    let events = log.events;
    if (previous) {
      // NOTE: a previous container ended before the current one began; its lines at or after the current one's
      // first are the current container's again (the snapshots hold such repeats): kept once.
      const firstCurrent = current?.events.find((event) => Number.isFinite(event.time))?.time;
      if (firstCurrent !== undefined) {
        const before = events.filter((event) => !(event.time >= firstCurrent));
        repeatedPrevious += events.length - before.length;
        events = before.map((event) =>
          Number.isFinite(event.time) ? event : { ...event, time: firstCurrent - 1, timestamp: '' },
        );
      }
    }
    if (events.length === 0) continue;
    streams.set(service, [...(streams.get(service) ?? []), ...events]);
  }
  let newest = Number.NEGATIVE_INFINITY;
  let oldest = Number.POSITIVE_INFINITY;
  for (const events of streams.values()) {
    for (const event of events) {
      if (!Number.isFinite(event.time)) continue;
      newest = Math.max(newest, event.time);
      oldest = Math.min(oldest, event.time);
    }
  }
  if (!Number.isFinite(newest)) return { ok: false, detail: 'no log line of the case carries a time' };
  const end = Math.ceil((newest + 1) / 60_000) * 60_000;
  const start = Math.floor(Math.max(oldest, end - WINDOW_MINUTES * 60_000) / 60_000) * 60_000;
  for (const [service, events] of streams) {
    streams.set(
      service,
      events.map((event) =>
        Number.isFinite(event.time) && event.timestamp !== ''
          ? event
          : // NOTE: a stream without any time sits at the window's start.
            {
              ...event,
              time: Number.isFinite(event.time) ? event.time : start,
              timestamp: formatInstant(Number.isFinite(event.time) ? event.time : start, zone),
            },
      ),
    );
  }
  // NOTE: oldest first (a stable sort: lines of one instant keep their order), as the adapter's files are written.
  for (const [service, events] of streams)
    streams.set(
      service,
      events.sort((a, b) => a.time - b.time),
    );
  const kubernetes = buildKubernetesState(files.states, {
    snapshotMs: newest,
    zone,
    namespace: files.metadata.namespace,
  });
  if (kubernetes.length > 0) streams.set(KUBERNETES_STREAM, kubernetes);
  let records = 0;
  for (const events of streams.values()) records += events.length;
  return {
    ok: true,
    imported: {
      namespace: files.metadata.namespace,
      zone,
      snapshotMs: newest,
      window: { start: formatWindow(start, zone), end: formatWindow(end, zone) },
      streams,
      stats: {
        streams: streams.size,
        records,
        lines,
        kubectlNotes,
        untimedEvents,
        repeatedPrevious,
        kubernetesRecords: kubernetes.length,
      },
    },
  };
}

/** How far a previous container's lines may lie outside its pod's life: clocks and collection are not exact. */
const POD_LIFE_SLACK_MS = 2 * 60_000;

/**
 * A `.previous` container's log. Its lines have no runtime prefix, so a time without a zone is read in the zone its
 * service's current container taught. When that one taught none (it wrote nothing yet, as a container that keeps
 * restarting), the zone is the first of the case's zone, the zones the case's other containers taught, and UTC that
 * places the lines inside the pod's life: not before its sidecar's first line (the pod's start), not after the case's
 * newest prefixed line (the snapshot). The applications of one case write their clocks in different zones, so the
 * case's zone alone can put a restarted service's lines hours away from the incident, outside the window.
 */
function parsePreviousLog(
  log: string | unknown[],
  service: string,
  current: ReadonlyMap<string, ContainerLog>,
  options: { zone: string; year: number },
): ContainerLog {
  const taught = current.get(service)?.learnedZone;
  if (taught !== undefined) return parseContainerLog(log, { ...options, learnedZone: taught });
  let newest = Number.NEGATIVE_INFINITY;
  let podStart = Number.POSITIVE_INFINITY;
  for (const [key, parsed] of current) {
    const sidecar = key.startsWith(`${service}.`);
    for (const event of parsed.events) {
      if (!Number.isFinite(event.time)) continue;
      newest = Math.max(newest, event.time);
      if (sidecar) podStart = Math.min(podStart, event.time);
    }
  }
  const candidates = new Set([
    options.zone,
    ...[...current.values()].flatMap((parsed) => parsed.learnedZone ?? []),
    'Z',
  ]);
  let first: ContainerLog | undefined;
  for (const zone of candidates) {
    const parsed = parseContainerLog(log, { ...options, learnedZone: zone });
    first ??= parsed;
    const times = parsed.events.map((event) => event.time).filter((time) => Number.isFinite(time));
    if (times.length === 0) return parsed;
    const inside = times.every(
      (time) =>
        (!Number.isFinite(newest) || time <= newest + POD_LIFE_SLACK_MS) &&
        (!Number.isFinite(podStart) || time >= podStart - POD_LIFE_SLACK_MS),
    );
    if (inside) return parsed;
  }
  // NOTE: no zone places the lines inside the pod's life (a clock that was wrong): the case's zone, as before.
  return first ?? parseContainerLog(log, options);
}

/** `2026-03-12T17:43:00+08:00`: a window bound to the minute, in the case's zone. */
function formatWindow(ms: number, zone: string): string {
  return formatInstant(ms, zone).replace(/:00\.000(?=Z|[+-])/, ':00');
}

const PREFIX_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(Z|[+-]\d{2}:\d{2}) /;

/** The zone most of the case's container prefixes are written in (their first lines); `Z` when none has one. */
function caseZone(logs: CaseFiles['logs']): string {
  const counts = new Map<string, number>();
  for (const log of Object.values(logs)) {
    const head = typeof log === 'string' ? log.slice(0, 4_096).split('\n') : log.slice(0, 20);
    for (const line of head) {
      const zone = typeof line === 'string' ? PREFIX_ZONE.exec(line)?.[1] : undefined;
      if (zone !== undefined) counts.set(zone, (counts.get(zone) ?? 0) + 1);
    }
  }
  const [best] = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return best?.[0] === '+00:00' ? 'Z' : (best?.[0] ?? 'Z');
}

/** The year of the case's first container prefix (klog's lines write none); 1970 when no line has one. */
function caseYear(logs: CaseFiles['logs']): number {
  for (const log of Object.values(logs)) {
    const first = typeof log === 'string' ? log.slice(0, 40) : log[0];
    const year = typeof first === 'string' ? /^(\d{4})-\d{2}-\d{2}T/.exec(first)?.[1] : undefined;
    if (year !== undefined) return Number(year);
  }
  return 1970;
}

/** The IANA zone the run reads its clock in for a case's zone (`+08:00` → `Etc/GMT-8`; `Z` and others → `UTC`). */
export function timeZoneOf(zone: string): string {
  const match = /^([+-])(\d{2}):00$/.exec(zone);
  if (match === null || match[2] === '00') return 'UTC';
  const hours = Number(match[2]);
  // NOTE: the Etc zones' signs are POSIX's, the opposite of ISO 8601's.
  return `Etc/GMT${match[1] === '+' ? '-' : '+'}${hours}`;
}

/**
 * Writes the case's streams as the local logs adapter's files (`<dir>/stream-<index>.jsonl`, one record a line, in the
 * streams' order: oldest first) for one enterprise. Returns the bytes written.
 */
export function writeCaseLogs(imported: ImportedCase, dir: string, enterpriseId: string): number {
  mkdirSync(dir, { recursive: true });
  let bytes = 0;
  let index = 0;
  for (const [service, events] of imported.streams) {
    const text = events
      .map((event) =>
        JSON.stringify({
          timestamp: event.timestamp,
          level: event.level,
          service,
          message: event.message,
          enterprise_id: enterpriseId,
        }),
      )
      .join('\n');
    // NOTE: file names are the stream's index, never the dataset's key: a key is text the dataset chose.
    const path = join(dir, `stream-${String(index).padStart(3, '0')}.jsonl`);
    writeFileSync(path, `${text}\n`);
    bytes += Buffer.byteLength(text) + 1;
    index += 1;
  }
  return bytes;
}
