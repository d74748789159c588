/**
 * A case's Kubernetes state (`k8s_states.json`: kubectl's output per command) as one log stream, so the agent reads
 * it through `query_logs` like any service's logs (the seed's three tools stay three). One record per object of the
 * `kubectl get` tables (pods with their phase and restarts, deployments, statefulsets, replicasets, daemonsets, jobs,
 * services, endpoints, nodes, volumes and claims, quotas), one per container of a described pod (its state, last
 * state with reason and exit code — `OOMKilled`, `Error` —, readiness, restarts, probes), one per described
 * deployment (its rollout: replicas and conditions), node (taints, conditions) and service (selector, ports,
 * endpoints), and one per event (`BackOff`, `FailedScheduling`, `Unhealthy`, `FailedCreate`, …), from the
 * namespace's event lists and every describe's `Events:` table, each event once.
 * Every message starts with the object as `<kind>/<name>` (events with `event <kind>/<name>`), so a keyword finds an
 * object's records. State records carry the snapshot's time; an event the snapshot time less its age. Levels: a
 * failing object (a crash-looping or failed pod, a node not ready) ERROR; a degraded one (not ready, pending,
 * unavailable replicas, no endpoints, cordoned, a Warning event) WARN; the rest INFO.
 * NOTE: ConfigMaps, Secrets, ServiceAccounts and role bindings are configuration, not state, and are left out (a
 * missing ServiceAccount shows in its ReplicaSet's `FailedCreate` event).
 * NOTE: over 300 lines on purpose: one case's Kubernetes state as one log stream: each kubectl table's records share
 * one reader.
 */
import { formatInstant } from './container-log.ts';
import {
  ageSeconds,
  describedConditions,
  describedContainers,
  describedEvents,
  describedField,
  parseTable,
  type TableRow,
} from './kubectl-text.ts';
import type { RecordLevel } from './log-formats.ts';

/** The service name of the Kubernetes stream in the case's logs. */
export const KUBERNETES_STREAM = 'kubernetes';

export interface StateRecord {
  time: number;
  timestamp: string;
  level: RecordLevel;
  message: string;
}

/** kubectl's plural resource names → the singular the records use. */
const KINDS: Record<string, string> = {
  pods: 'pod',
  pod: 'pod',
  deployments: 'deployment',
  statefulsets: 'statefulset',
  statefulset: 'statefulset',
  daemonsets: 'daemonset',
  replicasets: 'replicaset',
  jobs: 'job',
  services: 'service',
  service: 'service',
  endpoints: 'endpoints',
  nodes: 'node',
  persistentvolumeclaims: 'persistentvolumeclaim',
  persistentvolumes: 'persistentvolume',
  resourcequota: 'resourcequota',
};

/** The kind a record names for one of kubectl's resource words (`pods`, `po`, `pod`), or undefined. */
export function recordKind(resource: string): string | undefined {
  const word = resource.toLowerCase();
  // NOTE: kubectl's short names, as the benchmark's own evaluation reads them.
  const aliases: Record<string, string> = {
    po: 'pods',
    deploy: 'deployments',
    sts: 'statefulsets',
    ds: 'daemonsets',
    rs: 'replicasets',
    svc: 'services',
    ep: 'endpoints',
    no: 'nodes',
    pvc: 'persistentvolumeclaims',
    pv: 'persistentvolumes',
  };
  return KINDS[aliases[word] ?? word] ?? KINDS[`${word}s`];
}

const FAILING_POD = new Set([
  'CrashLoopBackOff',
  'Error',
  'OOMKilled',
  'ImagePullBackOff',
  'ErrImagePull',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
  'ContainerStatusUnknown',
  'Evicted',
  'Failed',
  'Init:Error',
  'Init:CrashLoopBackOff',
  'Init:ImagePullBackOff',
  'Init:ErrImagePull',
]);

export interface KubernetesStateOptions {
  /** The snapshot's time (epoch ms): the time of state records, and what event ages count back from. */
  snapshotMs: number;
  /** The zone the case's times are written in (`+08:00`). */
  zone: string;
  /** The case's namespace: records of other namespaces say theirs. */
  namespace: string;
}

/** The Kubernetes stream of a case (see the module's note); never throws on any input. */
export function buildKubernetesState(
  states: Readonly<Record<string, string>>,
  options: KubernetesStateOptions,
): StateRecord[] {
  // NOTE: an event is listed by the namespace's event list and by its object's describe (with a count there): one
  // record, the newest sighting, with the count when one of them has it.
  const messages = new Map<string, { message: string; level: RecordLevel; ageSeconds: number }>();
  const add = (message: string, level: RecordLevel, age = 0, repeat = '') => {
    const known = messages.get(message);
    const withRepeat = repeat === '' ? (known?.message ?? message) : `${message}${repeat}`;
    if (known === undefined || age < known.ageSeconds)
      messages.set(message, { message: withRepeat, level, ageSeconds: age });
    else if (repeat !== '') known.message = withRepeat;
  };
  for (const [command, text] of Object.entries(states)) {
    const get = /^kubectl get (\S+) -n (\S+)(?: --sort-by=\S+)?$/.exec(command);
    if (get !== null) {
      const [, resource = '', namespace = ''] = get;
      const where = namespace === options.namespace ? '' : ` namespace=${namespace}`;
      if (resource === 'events') {
        for (const row of parseTable(text)) tableEvent(row, where, add);
        continue;
      }
      const kind = KINDS[resource];
      if (kind === undefined) continue;
      for (const row of parseTable(text)) {
        const name = row.NAME;
        if (name === undefined || name === '') continue;
        const fields = Object.entries(row)
          .filter(([column]) => column !== 'NAME')
          .map(([column, value]) => `${column}=${value === '' ? '<none>' : value}`);
        add(`${kind}/${name}${where} ${fields.join(' ')}`, rowLevel(kind, row));
      }
      continue;
    }
    const describe = /^kubectl describe (\S+) (\S+) -n (\S+)$/.exec(command);
    if (describe === null) continue;
    const [, resource = '', name = '', namespace = ''] = describe;
    const kind = KINDS[resource];
    if (kind === undefined) continue;
    const where = namespace === options.namespace ? '' : ` namespace=${namespace}`;
    for (const event of describedEvents(text)) {
      add(
        `event ${kind}/${name}${where} ${event.type} ${event.reason}: ${event.message}`,
        event.type === 'Warning' ? 'WARN' : 'INFO',
        event.ageSeconds ?? 0,
        event.repeat === undefined ? '' : ` (${event.repeat})`,
      );
    }
    for (const record of describedState(kind, name, where, text)) add(record.message, record.level);
  }
  const records: StateRecord[] = [];
  for (const { message, level, ageSeconds: age } of messages.values()) {
    const time = options.snapshotMs - age * 1_000;
    records.push({
      time,
      timestamp: formatInstant(time, options.zone),
      level,
      message: message.replace(/\s{2,}/g, ' '),
    });
  }
  // NOTE: newest first is how the logs tool answers; at one instant the failing and degraded objects come first.
  const rank: Record<RecordLevel, number> = { ERROR: 0, WARN: 1, INFO: 2, DEBUG: 3, UNKNOWN: 4 };
  return records.sort((a, b) => a.time - b.time || rank[a.level] - rank[b.level]);
}

function tableEvent(row: TableRow, where: string, add: (message: string, level: RecordLevel, age?: number) => void) {
  const object = row.OBJECT;
  if (object === undefined || object === '') return;
  const type = row.TYPE ?? '';
  add(
    `event ${object}${where} ${type} ${row.REASON ?? ''}: ${row.MESSAGE ?? ''}`,
    type === 'Warning' ? 'WARN' : 'INFO',
    ageSeconds(row['LAST SEEN'] ?? '') ?? 0,
  );
}

function rowLevel(kind: string, row: TableRow): RecordLevel {
  switch (kind) {
    case 'pod': {
      const status = row.STATUS ?? '';
      if (FAILING_POD.has(status)) return 'ERROR';
      const [ready, total] = (row.READY ?? '').split('/');
      if (status === 'Completed' || status === 'Succeeded') return 'INFO';
      return status === 'Running' && ready === total ? 'INFO' : 'WARN';
    }
    case 'deployment':
    case 'statefulset': {
      const [ready, total] = (row.READY ?? '').split('/');
      return ready !== total || total === '0' ? 'WARN' : 'INFO';
    }
    case 'replicaset':
    case 'daemonset':
      return (row.READY ?? '') !== (row.DESIRED ?? '') ? 'WARN' : 'INFO';
    case 'node': {
      const status = row.STATUS ?? '';
      if (/NotReady|Unknown/.test(status)) return 'ERROR';
      return status.includes('SchedulingDisabled') ? 'WARN' : 'INFO';
    }
    case 'endpoints':
      return (row.ENDPOINTS ?? '') === '' || row.ENDPOINTS === '<none>' ? 'WARN' : 'INFO';
    case 'persistentvolumeclaim':
    case 'persistentvolume':
      return /Pending|Lost|Failed|Released/.test(row.STATUS ?? '') ? 'WARN' : 'INFO';
    default:
      return 'INFO';
  }
}

/** What a describe adds to the tables: containers' states, a rollout, a node's taints, a service's wiring. */
function describedState(
  kind: string,
  name: string,
  where: string,
  text: string,
): { message: string; level: RecordLevel }[] {
  const object = `${kind}/${name}${where}`;
  switch (kind) {
    case 'pod':
      return describedContainers(text).map((container) => containerState(object, container));
    case 'deployment':
    case 'statefulset': {
      const replicas = describedField(text, 'Replicas') ?? '';
      const conditions = describedConditions(text)
        .map((condition) => `${condition.type}=${condition.status}${condition.reason ? ` (${condition.reason})` : ''}`)
        .join(', ');
      const unavailable = /(\d+) unavailable/.exec(replicas);
      const desired = /^(\d+) desired/.exec(replicas);
      const degraded = (unavailable !== null && unavailable[1] !== '0') || desired?.[1] === '0';
      return [
        {
          message: `${object} rollout: replicas ${replicas}${conditions === '' ? '' : `; conditions ${conditions}`}`,
          level: degraded || /=False/.test(conditions) ? 'WARN' : 'INFO',
        },
      ];
    }
    case 'node': {
      const taints = describedField(text, 'Taints') ?? '<none>';
      const unschedulable = describedField(text, 'Unschedulable') ?? 'false';
      const conditions = describedConditions(text);
      const ready = conditions.find((condition) => condition.type === 'Ready');
      const pressure = conditions.filter((condition) => condition.type !== 'Ready' && condition.status === 'True');
      const parts = [
        `ready=${ready?.status ?? 'unknown'}${ready?.reason ? ` (${ready.reason})` : ''}`,
        `taints=${taints}`,
        `unschedulable=${unschedulable}`,
        ...pressure.map((condition) => `${condition.type}=True (${condition.reason})`),
      ];
      const level: RecordLevel =
        ready?.status !== 'True' ? 'ERROR' : unschedulable === 'true' || pressure.length > 0 ? 'WARN' : 'INFO';
      return [{ message: `${object} ${parts.join(' ')}`, level }];
    }
    case 'service': {
      const endpoints = describedField(text, 'Endpoints') ?? '';
      const parts = ['Selector', 'Type', 'Port', 'TargetPort', 'Endpoints'].map(
        (field) => `${field.toLowerCase()}=${describedField(text, field) ?? ''}`,
      );
      return [
        {
          message: `${object} ${parts.join(' ')}`,
          level: endpoints === '' || endpoints === '<none>' ? 'WARN' : 'INFO',
        },
      ];
    }
    default:
      return [];
  }
}

function containerState(
  object: string,
  container: { name: string; init: boolean; fields: Map<string, string> },
): { message: string; level: RecordLevel } {
  const field = (key: string) => container.fields.get(key);
  const state = field('State') ?? 'unknown';
  const reason = field('State.Reason');
  const last = field('Last State');
  const lastReason = field('Last State.Reason');
  const exitCode = field('Last State.Exit Code') ?? field('State.Exit Code');
  const finished = field('Last State.Finished');
  const restarts = field('Restart Count') ?? '0';
  const parts = [`state ${state}${reason ? ` (${reason})` : ''}`];
  if (last !== undefined && last !== '' && !/^<none>$/.test(last)) {
    const details = [
      lastReason,
      exitCode === undefined ? undefined : `exit code ${exitCode}`,
      finished && `finished ${finished}`,
    ]
      .filter((part): part is string => typeof part === 'string' && part !== '')
      .join(', ');
    parts.push(`last state ${last}${details === '' ? '' : ` (${details})`}`);
  }
  parts.push(`ready ${field('Ready') ?? 'unknown'}`, `restarts ${restarts}`);
  for (const probe of ['Liveness', 'Readiness', 'Startup']) {
    const value = field(probe);
    if (value !== undefined) parts.push(`${probe.toLowerCase()} ${value}`);
  }
  const failing = FAILING_POD.has(reason ?? '') || (Number(restarts) > 0 && /OOMKilled|Error/.test(lastReason ?? ''));
  const level: RecordLevel = failing ? 'ERROR' : field('Ready') === 'False' || state !== 'Running' ? 'WARN' : 'INFO';
  const label = container.init ? 'init container' : 'container';
  return { message: `${object} ${label} ${container.name}: ${parts.join('; ')}`, level };
}
