import { utf8Bytes } from '../run/utf8.ts';
import type { EvidenceErrorCode } from './evidence-adapter.ts';
import { type ProjectedData, shrinkToFit } from './evidence-projection.ts';

export type EvidenceStatus = 'OK' | 'EMPTY' | 'ERROR' | 'REJECTED' | 'STOP_REQUIRED';

export type RejectionCode =
  | 'MISSING_PREVIOUS_OBSERVATION'
  | 'PREVIOUS_OBSERVATION_MISMATCH'
  | 'INVALID_INPUT'
  | 'DUPLICATE_CALL'
  | 'DUPLICATE_TOOL_CALL_ID'
  | 'INVALID_TOOL_CALL_ID'
  | 'UNKNOWN_TOOL'
  | 'UNKNOWN_PSEUDONYM'
  | 'OUTSIDE_INCIDENT_WINDOW';

/** Exactly what the model receives as a tool result: one JSON object, at most {@link MAX_OBSERVATION_BYTES}. */
export interface Observation {
  tool_call_id: string;
  evidence_status: EvidenceStatus;
  data?: ProjectedData;
  code?: EvidenceErrorCode | RejectionCode;
  message?: string;
  requires_evaluation?: true;
}

export const MAX_OBSERVATION_BYTES = 8 * 1024;

// NOTE: fixed texts only. No raw response, exception text, counter, threshold or remaining budget ever goes here.
const ERROR_MESSAGES: Record<EvidenceErrorCode, string> = {
  TIMEOUT: '证据源在时限内没有返回结果。不会自动重试。',
  UNAVAILABLE: '证据源暂时不可用。不会自动重试。',
  THROTTLED: '证据源限流，本次未执行。不会自动重试。',
  INVALID_QUERY: '证据源拒绝了这个查询条件（例如服务未配置或条件不被支持）。',
  NOT_CONFIGURED: '此证据源在当前环境未配置。',
  ACCESS_DENIED: '没有权限读取此证据源。',
  INTERNAL: '证据源内部错误。不会自动重试。',
  NOT_RECORDED: '这是一次录制运行的回放：这个查询不在录制中，没有可返回的证据（不代表没有匹配）。',
};

export function okObservation(toolCallId: string, data: ProjectedData): Observation {
  const build = (candidate: ProjectedData): Observation => ({
    tool_call_id: toolCallId,
    evidence_status: 'OK',
    data: candidate,
    requires_evaluation: true,
  });
  const fitted = shrinkToFit(data, (candidate) => observationBytes(build(candidate)) <= MAX_OBSERVATION_BYTES);
  return build(fitted);
}

export function emptyObservation(toolCallId: string): Observation {
  return { tool_call_id: toolCallId, evidence_status: 'EMPTY', message: '查询已执行，没有匹配的证据。' };
}

export function errorObservation(toolCallId: string, code: EvidenceErrorCode): Observation {
  return { tool_call_id: toolCallId, evidence_status: 'ERROR', code, message: ERROR_MESSAGES[code] };
}

export function rejectedObservation(
  toolCallId: string,
  code: RejectionCode,
  detail: RejectionDetail = {},
): Observation {
  return { tool_call_id: toolCallId, evidence_status: 'REJECTED', code, message: rejectionMessage(code, detail) };
}

export function stopRequiredObservation(toolCallId: string): Observation {
  return {
    tool_call_id: toolCallId,
    evidence_status: 'STOP_REQUIRED',
    message: STOP_REQUIRED_MESSAGE,
  };
}

export const STOP_REQUIRED_MESSAGE =
  '证据收集已结束（STOP_REQUIRED）。不要再调用任何工具，立即基于已有证据只输出最终的 DiagnosisDraft JSON 对象。';

/** What a rejection's fixed message may name: ids and paths the harness checked, the window the run was given. */
export interface RejectionDetail {
  expectedToolCallId?: string;
  paths?: readonly string[];
  /** The allowed window, as the model reads times (ISO with the run's offset). */
  window?: { from: string; to: string };
}

function rejectionMessage(code: RejectionCode, detail: RejectionDetail) {
  switch (code) {
    case 'MISSING_PREVIOUS_OBSERVATION':
      return `工具未执行：上一条非空结果尚未评估。请在 previous_observation 中填写 tool_call_id="${detail.expectedToolCallId ?? ''}" 和 evaluation（GAINED 或 NO_GAIN）后再调用。`;
    case 'PREVIOUS_OBSERVATION_MISMATCH':
      return detail.expectedToolCallId === undefined
        ? '工具未执行：当前没有待评估的结果，previous_observation 不应出现。'
        : `工具未执行：previous_observation.tool_call_id 必须是待评估的 "${detail.expectedToolCallId}"。`;
    case 'INVALID_INPUT':
      return `工具未执行：输入不符合工具定义。问题字段：${(detail.paths ?? []).join(', ') || '$'}`;
    case 'DUPLICATE_CALL':
      return '工具未执行：与本次运行中已执行的调用等价，不会重复执行。视为无信息增益。';
    case 'DUPLICATE_TOOL_CALL_ID':
      return '工具未执行：tool_call_id 在本次运行中已使用。';
    case 'UNKNOWN_TOOL':
      return '工具未执行：没有这个工具。可用的工具只有 lookup_knowledge、query_logs 和 query_mysql。';
    case 'UNKNOWN_PSEUDONYM':
      return '工具未执行：参数中的假名（形如 <email:k3f2a>）不是本次运行的观察结果中出现过的，无法还原为真实值。只能使用本次运行已展示的假名。';
    case 'OUTSIDE_INCIDENT_WINDOW':
      return `工具未执行：查询的时间范围与本次事件的时间窗不重叠。允许的时间窗：${detail.window?.from ?? ''} 至 ${detail.window?.to ?? ''}。请在此时间窗内重新查询。`;
    case 'INVALID_TOOL_CALL_ID':
      return '工具未执行：tool_call_id 过长或含有不允许的字符（只能由字母、数字和 _ . : - 组成）。';
  }
}

function observationBytes(observation: Observation): number {
  return utf8Bytes(JSON.stringify(observation));
}
