import type { AuditHook, ModelStepEvent, ToolInvocationEvent } from '@diagnosis/core';

/** An audit hook that keeps every event in memory; `failOn` makes the chosen event kind reject. */
export function createMemoryAudit(options: { failOn?: 'model-step' | 'tool-invocation' } = {}) {
  const steps: ModelStepEvent[] = [];
  const tools: ToolInvocationEvent[] = [];
  const hook: AuditHook = {
    async onModelStep(event) {
      if (options.failOn === 'model-step') throw new Error('audit store unavailable: secret-host:5432');
      steps.push(event);
    },
    async onToolInvocation(event) {
      if (options.failOn === 'tool-invocation') throw new Error('audit store unavailable: secret-host:5432');
      tools.push(event);
    },
  };
  return { hook, steps, tools };
}
