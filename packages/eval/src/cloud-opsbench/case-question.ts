/**
 * The question a Cloud-OpsBench case asks the agent, in the product's language: the case's own query and alerts
 * (entry service, method and URL, business action, error, occurrences), the window of its own times, the log streams
 * it can query (services and the `kubernetes` stream), and how to name the answer so it can be scored as the
 * benchmark scores: the fault object as `app/<service>`, `node/<node>` or `namespace/<namespace>`, and one of the
 * system's root-cause labels (benchmark-labels.ts reads both back from the conclusion).
 * NOTE: bounded to the operator query's limit (4,000 bytes here, under the 4,096 the service takes): past it, alerts
 * and then streams are cut and counted.
 */
import type { CaseAlert } from './opsbench-dataset.ts';

export const MAX_QUESTION_BYTES = 4_000;
const MAX_ALERTS = 5;

export interface QuestionInput {
  query: string;
  namespace: string;
  alerts: readonly CaseAlert[];
  window: { start: string; end: string };
  /** The log streams of the case (services, sidecars, `kubernetes`). */
  streams: readonly string[];
  /** The system's root-cause labels. */
  labels: readonly string[];
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const clean = (text: string, max: number) => text.replace(/\s+/g, ' ').trim().slice(0, max);

function alertLine(alert: CaseAlert): string {
  if (alert.entry_service === undefined && alert.name !== undefined) {
    // A metric anomaly of an entity: its time range, categories and first evidence line.
    const kind = alert.entity_type === undefined ? '' : `（${clean(alert.entity_type, 50)}）`;
    const when = alert.time_range === undefined ? '' : ` ${clean(alert.time_range, 60)}`;
    const what = alert.metric_category === undefined ? '' : `：${clean(alert.metric_category, 150)}`;
    const evidence = alert.evidence?.[0] === undefined ? '' : `；${clean(alert.evidence[0], 200)}`;
    return `- ${clean(alert.name, 200)}${kind}${when}${what}${evidence}`;
  }
  const where = [alert.entry_service, alert.request_method, alert.url].filter((part) => part !== undefined).join(' ');
  const action = alert.business_action === undefined ? '' : `（${clean(alert.business_action, 100)}）`;
  const error = alert.raw_error === undefined ? '' : `：${clean(alert.raw_error, 200)}`;
  const count = alert.occurrences === undefined ? '' : `，${alert.occurrences} 次`;
  return `- ${clean(where, 300)}${action}${error}${count}`;
}

/** The question of a case (see the module's note). */
export function buildCaseQuestion(input: QuestionInput): string {
  const services = input.streams.filter((stream) => stream !== 'kubernetes' && !stream.endsWith('.istio-proxy'));
  const sidecars = input.streams.some((stream) => stream.endsWith('.istio-proxy'));
  const build = (alertCount: number, serviceCount: number) => {
    const alerts = input.alerts.slice(0, alertCount).map(alertLine);
    const more = input.alerts.length - alerts.length;
    const shown = services.slice(0, serviceCount);
    const hidden = services.length - shown.length;
    return [
      `${clean(input.namespace, 100)} 集群告警：${clean(input.query, 500)}`,
      input.alerts.length === 0 ? '告警详情：无。' : `告警详情（${input.alerts.length} 条）：`,
      ...alerts,
      ...(more > 0 ? [`- 另有 ${more} 条未列出`] : []),
      `时间窗口：${input.window.start} 至 ${input.window.end}。`,
      `可查询日志的服务：${shown.join('、')}${hidden > 0 ? ` 等 ${services.length} 个` : ''}` +
        `${sidecars ? '；sidecar 的日志在服务 <服务名>.istio-proxy' : ''}。` +
        'Kubernetes 状态（Pod、Deployment、节点、Service、事件）在服务 kubernetes 的日志中，每条以 <类型>/<名称> 开头。',
      '请找出根因。结论中写出故障对象（app/<服务名>、node/<节点名> 或 namespace/<命名空间>）' +
        `和下列根因标签之一：${input.labels.join('、')}。`,
    ].join('\n');
  };
  let alertCount = Math.min(MAX_ALERTS, input.alerts.length);
  let serviceCount = services.length;
  let question = build(alertCount, serviceCount);
  while (bytes(question) > MAX_QUESTION_BYTES && alertCount > 1) question = build(--alertCount, serviceCount);
  while (bytes(question) > MAX_QUESTION_BYTES && serviceCount > 0) question = build(alertCount, --serviceCount);
  return question;
}
