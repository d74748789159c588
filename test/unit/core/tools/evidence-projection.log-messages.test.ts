import { describe, expect, it } from 'vitest';
import { PROJECTION_LIMITS, projectEvidence } from '../../../../packages/core/src/tools/evidence-projection.ts';
import { MAX_OBSERVATION_BYTES, okObservation } from '../../../../packages/core/src/tools/observation.ts';

/** One log event as a logs source joins it: an ERROR line, its exception and the chain of causes, frames folded. */
function exceptionChain(): string {
  return [
    '1 --- [ main] o.s.boot.SpringApplication : Application run failed',
    "org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'entityManagerFactory' " +
      'defined in class path resource [org/springframework/boot/autoconfigure/orm/jpa/HibernateJpaConfiguration.class]: ' +
      'Invocation of init method failed; nested exception is javax.persistence.PersistenceException: [PersistenceUnit: ' +
      'default] Unable to build Hibernate SessionFactory; nested exception is org.hibernate.exception.' +
      'JDBCConnectionException: Unable to open JDBC Connection for DDL execution',
    '... 25 frames',
    'Caused by: javax.persistence.PersistenceException: [PersistenceUnit: default] Unable to build Hibernate ' +
      'SessionFactory; nested exception is org.hibernate.exception.JDBCConnectionException: Unable to open JDBC ' +
      'Connection for DDL execution',
    '... 24 frames',
    'Caused by: org.hibernate.exception.JDBCConnectionException: Unable to open JDBC Connection for DDL execution',
    '... 28 frames',
    "Caused by: java.sql.SQLException: Access denied for user 'ts'@'10.0.0.7' (using password: YES)",
    '... 44 frames',
  ].join('\n');
}

describe('projectEvidence of log lines', () => {
  it('keeps an exception chain whole up to its root cause when the source joined it into one message', () => {
    const message = exceptionChain();
    expect(message.length).toBeGreaterThan(1_000);
    const projection = projectEvidence('query_logs', {
      matched: 1,
      lines: [{ timestamp: '2026-03-12T17:42:40.640+08:00', level: 'ERROR', service: 'ts-auth-service', message }],
    });
    expect(projection.ok).toBe(true);
    const shown = projection.ok && 'lines' in projection.data ? (projection.data.lines[0]?.message ?? '') : '';
    expect(shown).toContain("Caused by: java.sql.SQLException: Access denied for user 'ts'@'10.0.0.7'");
  });

  it('cuts a message at its bound, and the observation still fits its 8 KiB', () => {
    const message = 'x'.repeat(PROJECTION_LIMITS.logMessageChars + 500);
    const line = { timestamp: '2026-03-12T17:42:40.640+08:00', level: 'ERROR', service: 's', message };
    const projection = projectEvidence('query_logs', { matched: 20, lines: Array.from({ length: 20 }, () => line) });
    expect(projection.ok).toBe(true);
    if (!projection.ok || !('lines' in projection.data)) return;
    expect(projection.data.lines[0]?.message).toHaveLength(PROJECTION_LIMITS.logMessageChars);
    const observation = okObservation('call_1', projection.data);
    expect(Buffer.byteLength(JSON.stringify(observation))).toBeLessThanOrEqual(MAX_OBSERVATION_BYTES);
    // Whole lines are dropped, oldest first, to fit: never a line cut in two, and `matched` keeps the total.
    const kept = observation.data !== undefined && 'lines' in observation.data ? observation.data.lines : [];
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(20);
    expect(kept.every((kept) => kept.message.length === PROJECTION_LIMITS.logMessageChars)).toBe(true);
    expect(observation.data !== undefined && 'matched' in observation.data ? observation.data.matched : 0).toBe(20);
  });
});
