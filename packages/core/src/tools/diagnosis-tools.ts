import { type JSONSchema7, jsonSchema, type ToolSet, tool } from 'ai';
import type { MysqlQueryDescriptor, ToolName } from './evidence-adapter.ts';
import { toJsonValue } from './json-value.ts';
import { toModelObservation } from './model-observation.ts';
import type { Observation } from './observation.ts';
import { buildModelToolSchemas } from './tool-inputs.ts';

/** Marker that replaces tool arguments the model sent as unparseable JSON, so the boundary can reject them. */
export const UNPARSEABLE_INPUT_MARKER = '__unparseable_tool_input__';

export type InterceptToolCall = (toolName: ToolName, rawInput: unknown, toolCallId: string) => Promise<Observation>;

const DESCRIPTIONS: Record<Exclude<ToolName, 'query_mysql'>, string> = {
  lookup_knowledge: '全文检索运行手册与知识库，返回命中的标题与最相关片段。',
  query_logs:
    '查询某个服务在时间窗内的日志，最新的在前：end_time 晚于 start_time，窗口不超过 24 小时。返回 matched（匹配总数）与最多 20 行日志。',
};

interface ToolDefinitions {
  descriptions: Record<ToolName, string>;
  inputSchemas: Record<ToolName, ReturnType<typeof jsonSchema<unknown>>>;
}

// NOTE: a cache of values derived from a catalog, which is built once per cold start and never changes: the tool
// definitions are then the same objects, and the same bytes on the wire, in every run and round (the provider's
// prompt cache keeps them), and a run does not rebuild them (≈ 50 µs).
const definitionsByCatalog = new WeakMap<readonly MysqlQueryDescriptor[], ToolDefinitions>();

function toolDefinitions(catalog: readonly MysqlQueryDescriptor[]): ToolDefinitions {
  const known = definitionsByCatalog.get(catalog);
  if (known !== undefined) return known;
  const schemas = buildModelToolSchemas(catalog);
  const schemaOf = (toolName: ToolName) =>
    jsonSchema<unknown>(schemas[toolName] as JSONSchema7, { validate: (value) => ({ success: true, value }) });
  const definitions: ToolDefinitions = {
    descriptions: { ...DESCRIPTIONS, query_mysql: describeCatalog(catalog) },
    inputSchemas: {
      lookup_knowledge: schemaOf('lookup_knowledge'),
      query_logs: schemaOf('query_logs'),
      query_mysql: schemaOf('query_mysql'),
    },
  };
  definitionsByCatalog.set(catalog, definitions);
  return definitions;
}

/**
 * The three tools as the AI SDK sees them (`refOf`: the number the harness gave a call, shown with its observation).
 * Their SDK-level validation accepts any JSON on purpose: the tool boundary validates the envelope itself (with the full schema, `createToolInputParser`), so a bad input becomes a
 * stable REJECTED observation instead of SDK error text. The model sees the compact schema
 * (`buildModelToolSchemas`): the exact shape, without the keywords it does not use.
 */
export function buildDiagnosisTools(
  catalog: readonly MysqlQueryDescriptor[],
  intercept: InterceptToolCall,
  refOf: (toolCallId: string) => number | undefined = () => undefined,
): ToolSet {
  const { descriptions, inputSchemas } = toolDefinitions(catalog);
  const define = (toolName: ToolName) =>
    tool({
      description: descriptions[toolName],
      inputSchema: inputSchemas[toolName],
      execute: (input, { toolCallId }) => intercept(toolName, input, toolCallId),
      // NOTE: the model reads the audited (already masked) observation in its compact form: log lines as a table,
      // with the number the Draft cites the call by (`ref`) after its id.
      toModelOutput: ({ toolCallId, output }) => ({
        type: 'json',
        value: toJsonValue(withRef(toModelObservation(output), refOf(toolCallId))),
      }),
    });
  return {
    lookup_knowledge: define('lookup_knowledge'),
    query_logs: define('query_logs'),
    query_mysql: define('query_mysql'),
  };
}

/** The observation with `ref` after its `tool_call_id` (as it is when the call has no number). */
function withRef(observation: Record<string, unknown>, ref: number | undefined): Record<string, unknown> {
  if (ref === undefined) return observation;
  const { tool_call_id, ...rest } = observation;
  return { tool_call_id, ref, ...rest };
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
  return `执行预定义的只读 SQL 查询（params 给出所选查询声明的全部参数），最多返回 20 行。可用查询：\n${list}`;
}
