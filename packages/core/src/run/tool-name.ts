/** The three evidence tools, exactly as the model sees them. */
export const TOOL_NAMES = Object.freeze(['lookup_knowledge', 'query_logs', 'query_mysql'] as const);

export type ToolName = (typeof TOOL_NAMES)[number];
