import { AGENT_OUTPUT_ERROR_CODES } from '../errors.ts';
import type { StopReason } from '../run/stop-reason.ts';

/**
 * The fixed Chinese texts of the release's reports, one per real cause. NOTE: fixed texts only: no model text, raw
 * error, value or counter ever goes into a report's message.
 */
export const REASON_TEXT: Record<StopReason, string> = {
  INFORMATION_SATURATED: '连续的查询没有带来新的诊断信息，证据收集已停止。',
  TOOL_CALL_BUDGET: '本次运行的证据查询次数已用完。',
  MODEL_CALL_BUDGET: '本次运行的模型调用次数已用完。',
  TOKEN_BUDGET: '本次运行的 Token 预算已用完。',
  DEADLINE: '本次运行已到达时间上限（调用剩余时间减去收尾预留），未能在时限内得出经过校验的结论。',
  CANCELLED: '本次运行在完成前被取消，证据收集已中止。',
  STOP_IGNORED: '诊断助手在要求停止后仍试图继续查询，结果不予采用。',
  ROUND_TOOL_CALL_LIMIT: '诊断助手在一轮中请求的证据查询超过了单轮上限，该轮的查询均未执行，运行已停止。',
  REJECTED_CALL_LIMIT: '诊断助手被拒绝的查询（输入无效或违反查询协议）达到了上限，运行已停止。',
};

/**
 * The FAILED report's message per error code: the real cause and what to check, fixed texts (never a raw value).
 * NOTE: no text sends the operator to someone else; each says what failed.
 */
export const FAILED_TEXT: Record<string, string> = {
  MODEL_FAILED:
    '模型服务调用失败（HTTP 状态与错误类型见 model_failure），本次运行未重试，没有可发布的结果。请检查模型服务的地址、API 密钥、配额与可用性后重新诊断。',
  MODEL_TIMEOUT:
    '模型服务在单次请求时限（DIAGNOSIS_MODEL_TIMEOUT_MS）内没有应答，本次运行已停止，没有可发布的结果。请检查模型服务是否可用；若模型只是较慢，可调大该时限。',
  AUDIT_FAILED:
    '审计记录写入失败；为保证审计完整，本次运行不发布任何结果。请检查 DynamoDB 表的可用性与写入权限后重新诊断。',
  INTERNAL: '诊断服务出现未预期的内部错误，没有可发布的结果。请按 runId 查看服务的运行日志后重新诊断。',
  RUN_ABANDONED:
    '该运行的上一次执行在完成前中断（例如函数超时或进程崩溃），已被关闭为失败，没有可发布的结果。请用新的 runId 重新诊断。',
  RUN_ITEM_TOO_LARGE: '本次运行的结果超过了存储上限，无法保存，已按失败关闭，没有可发布的结果。',
  COMPLETION_FAILED:
    '本次运行的结果未能写入存储，已按失败关闭，没有可发布的结果。请检查 DynamoDB 表的可用性后重新诊断。',
  ...Object.fromEntries(
    AGENT_OUTPUT_ERROR_CODES.map((code) => [
      code,
      '诊断助手的最终输出不是有效的诊断草稿（见 error_code），且本次运行没有任何经过校验的证据查询，没有可发布的结果。本次运行未重试；请重新诊断，若反复出现，请检查所用模型（DIAGNOSIS_MODEL_ID）是否遵循输出格式。',
    ]),
  ),
};
/** The message of a code without its own text (a caller error, say): the code itself names the cause. */
export const FAILED_TEXT_DEFAULT = '诊断失败，没有可发布的结果；原因见错误码 error_code。';

export const GUARD_TEXT: Record<string, string> = {
  GUARD_UNKNOWN_CITATION: '诊断草稿引用了本次运行中不存在或未成功的查询。',
  GUARD_SUPPORTED_WITHOUT_EVIDENCE: '诊断草稿中有结论性条目没有非空证据支撑。',
  GUARD_CITES_ONLY_NO_GAIN: '诊断草稿中有结论性条目只引用了诊断助手自己判定为“没有带来新信息”（NO_GAIN）的查询。',
  GUARD_NO_EVIDENCE_NOT_EMPTY: '诊断草稿把有数据的查询标记为无证据。',
  GUARD_CONCLUSION_UNSUPPORTED: '诊断草稿给出了结论，但没有经过校验的发现支撑。',
  DRAFT_BLANK: '诊断助手没有输出诊断草稿。',
  DRAFT_NOT_JSON: '诊断助手的输出不是合法的诊断草稿 JSON。',
  DRAFT_SCHEMA: '诊断助手的输出不符合诊断草稿的格式要求。',
  DRAFT_TOO_LARGE: '诊断助手的输出超过了大小限制。',
  SEMANTIC_GUARD_REJECTED:
    '独立的语义校验认为诊断结论或支撑它的发现没有得到所引用证据的支持（每条判断与理由见 semantic_guard）。',
  SEMANTIC_GUARD_FAILED:
    '语义校验没有给出有效判断（超时、超出预算、模型调用失败或输出无效，见 semantic_guard.failure），草稿未经语义校验。',
};

/** The lists of a Draft a guard may remove a claim from, as a limitation line names them. */
const DRAFT_LISTS = Object.freeze({ analysis: '分析', recommendations: '建议', action_plan: '行动步骤' });

/**
 * A removed claim as its limitation line names it (both guards): by its place in the agent's Draft, and an analysis
 * item by its type too, e.g. `草稿分析第 2 条（HYPOTHESIS）`. NOTE: never its text: a claim a guard removed is not
 * published, not even quoted under a label; the audit's Draft keeps it (`diagnosis trace`).
 */
export function removedClaimName(list: keyof typeof DRAFT_LISTS, index: number, type?: string): string {
  return `草稿${DRAFT_LISTS[list]}第 ${index + 1} 条${type === undefined ? '' : `（${type}）`}`;
}
