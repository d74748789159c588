import { type JSONSchema7, jsonSchema, type ToolSet, tool } from 'ai';
import type { MysqlQueryDescriptor, ToolName } from './evidence-adapter.ts';
import type { Observation } from './observation.ts';
import { buildToolJsonSchemas } from './tool-inputs.ts';

/** Marker that replaces tool arguments the model sent as unparseable JSON, so the boundary can reject them. */
export const UNPARSEABLE_INPUT_MARKER = '__unparseable_tool_input__';

export type InterceptToolCall = (toolName: ToolName, rawInput: unknown, toolCallId: string) => Promise<Observation>;

/**
 * The three tools as the AI SDK sees them. Their SDK-level validation accepts any JSON on purpose: the tool
 * boundary validates the envelope itself, so a bad input becomes a stable REJECTED observation instead of SDK error
 * text. The JSON Schema still tells the model the exact shape.
 */
export function buildDiagnosisTools(catalog: readonly MysqlQueryDescriptor[], intercept: InterceptToolCall): ToolSet {
  const schemas = buildToolJsonSchemas(catalog);
  const define = (toolName: ToolName, description: string) =>
    tool({
      description,
      inputSchema: jsonSchema<unknown>(schemas[toolName] as JSONSchema7, {
        validate: (value) => ({ success: true, value }),
      }),
      execute: (input, { toolCallId }) => intercept(toolName, input, toolCallId),
      toModelOutput: ({ output }) => ({ type: 'json', value: JSON.parse(JSON.stringify(output)) }),
    });
  return {
    lookup_knowledge: define(
      'lookup_knowledge',
      '检索运行手册与知识库（全文检索，支持中文）。input: query（检索内容）、可选 service（服务名）、可选 top_k（1–5）。返回命中文档的标题与最相关片段。',
    ),
    query_logs: define(
      'query_logs',
      '查询某个服务在时间窗内的日志，最新的在前。input: service、start_time、end_time（带时区偏移的 ISO 8601，end_time 晚于 start_time，窗口不超过 24 小时）、可选 keyword（不区分大小写的子串）、level（ERROR/WARN/INFO）、trace_id、limit（1–50）。返回 matched（匹配总数）与最多 20 行日志。',
    ),
    query_mysql: define('query_mysql', describeCatalog(catalog)),
  };
}

function describeCatalog(catalog: readonly MysqlQueryDescriptor[]): string {
  const entries = catalog.map((entry) => {
    const params = Object.entries(entry.params)
      .map(([name, param]) => {
        const bounds = [
          param.max_length === undefined ? '' : `≤${param.max_length} 字符`,
          param.min === undefined ? '' : `≥${param.min}`,
          param.max === undefined ? '' : `≤${param.max}`,
        ].filter((bound) => bound.length > 0);
        return `${name}（${param.type}${bounds.length > 0 ? `，${bounds.join('，')}` : ''}）：${param.description}`;
      })
      .join('；');
    return `- ${entry.name}：${entry.description}${params.length > 0 ? ` 参数：${params}` : ' 无参数'}`;
  });
  const list = entries.length > 0 ? entries.join('\n') : '（当前没有可用的查询）';
  return `执行预定义的只读 SQL 查询（按名称选择，企业范围由系统绑定）。input: query_name（下列之一）、params（该查询声明的全部参数）。最多返回 20 行。可用查询：\n${list}`;
}
