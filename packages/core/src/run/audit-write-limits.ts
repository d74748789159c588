/**
 * Audit writes a run's store has in flight at once by default. NOTE: every audit item of a run shares one partition
 * key (`RUN#<runId>`), and one partition takes about 1,000 writes a second; 16 puts of a few milliseconds each stay
 * far below that, while a round of many tool calls no longer puts every write on the wire at the same instant
 * (BENCHMARKS.md, "Audit writes under a flood of tool calls").
 */
export const DEFAULT_AUDIT_WRITES_IN_FLIGHT = 16;

/** The most `AUDIT_MAX_WRITES_IN_FLIGHT` may be set to: the DynamoDB client's own connection pool holds 50. */
export const MAX_AUDIT_WRITES_IN_FLIGHT = 50;
