import {
  type AdapterResult,
  EVIDENCE_ERROR_CODES,
  type EvidenceErrorCode,
  type ToolName,
} from '../tools/evidence-adapter.ts';
import { type EvidenceMasker, isRecord, projectEvidence } from '../tools/evidence-projection.ts';
import type { MaskingSession } from '../tools/masking/masking-session.ts';
import { emptyObservation, errorObservation, okObservation } from '../tools/observation.ts';
import type { ToolCallId } from '../tools/tool-call-id.ts';
import type { ToolOutcome } from './tool-outcome.ts';

/**
 * What an executed call's adapter answered, as the model and the audit may see it: the data projected and bounded
 * into the observation (masked on the way), the stored result masked, an unknown error code as INTERNAL and the
 * error detail masked and cut. NOTE: an adapter's answer is not trusted either: data of the wrong shape, or no valid
 * result at all, is an INTERNAL error.
 */
export function observeAdapterResult(
  toolName: ToolName,
  toolCallId: ToolCallId,
  result: AdapterResult<unknown>,
  masking: MaskingSession,
): ToolOutcome {
  if (isRecord(result) && result.status === 'OK') {
    const projection = projectEvidence(toolName, result.data, evidenceMasker(masking));
    if (!projection.ok) return errorOutcome(toolCallId, 'INTERNAL', 'adapter returned data of the wrong shape');
    if (projection.empty)
      return readyEmpty(toolCallId, result.data === null ? null : maskedResult(result.data, masking));
    return {
      disposition: 'EXECUTED',
      status: 'READY',
      empty: false,
      code: null,
      observation: okObservation(toolCallId, projection.data),
      result: maskedResult(result.data, masking),
      errorDetail: null,
    };
  }
  if (isRecord(result) && result.status === 'EMPTY') return readyEmpty(toolCallId, null);
  if (isRecord(result) && result.status === 'ERROR') {
    const code = EVIDENCE_ERROR_CODES.includes(result.code as EvidenceErrorCode)
      ? (result.code as EvidenceErrorCode)
      : 'INTERNAL';
    const detail =
      typeof result.detail === 'string' ? masking.maskText(result.detail.slice(0, 4_000)).slice(0, 1_000) : null;
    return errorOutcome(toolCallId, code, detail);
  }
  return errorOutcome(toolCallId, 'INTERNAL', 'adapter returned no valid result');
}

/**
 * The adapter's data as the audit stores it, masked as the observation is: a table's cells by their column (a
 * `password` column's cell is a secret whatever it looks like), everything else by its key. NOTE: a plain walk of
 * the rows would not know a cell's column, so a secret column stored in clear what the model saw redacted.
 */
function maskedResult(data: unknown, masking: MaskingSession): unknown {
  if (!isRecord(data) || !Array.isArray(data.columns) || !Array.isArray(data.rows)) return masking.maskValue(data);
  const columns = data.columns.map((column) => (typeof column === 'string' ? column : undefined));
  const { rows, ...rest } = data;
  return {
    ...(masking.maskValue(rest) as Record<string, unknown>),
    rows: rows.map((row) =>
      Array.isArray(row) ? row.map((cell, index) => masking.maskValue(cell, columns[index])) : masking.maskValue(row),
    ),
  };
}

/** The masking session as the projection uses it: free text, and table cells by their column. */
function evidenceMasker(masking: MaskingSession): EvidenceMasker {
  return {
    text: masking.maskText,
    cell: (value, column) => masking.maskValue(value, column) as string | number,
  };
}

function readyEmpty(toolCallId: ToolCallId, maskedResult: unknown): ToolOutcome {
  return {
    disposition: 'EXECUTED',
    status: 'READY',
    empty: true,
    code: null,
    observation: emptyObservation(toolCallId),
    result: maskedResult,
    errorDetail: null,
  };
}

function errorOutcome(toolCallId: ToolCallId, code: EvidenceErrorCode, errorDetail: string | null): ToolOutcome {
  return {
    disposition: 'EXECUTED',
    status: 'ERROR',
    empty: false,
    code,
    observation: errorObservation(toolCallId, code),
    result: null,
    errorDetail,
  };
}
