import * as v from 'valibot';

/**
 * A setting whose value is JSON (a stage-file section the deploy passes as one environment variable), at most 64 KiB,
 * parsed and then checked by `schema`. NOTE: a value that is not JSON fails with "not JSON", never with the parser's
 * message, which could quote the value.
 */
export const jsonSetting = <T extends v.GenericSchema>(schema: T) =>
  v.pipe(
    v.string(),
    v.maxLength(64 * 1024),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      try {
        return JSON.parse(dataset.value) as unknown;
      } catch {
        addIssue({ message: 'not JSON' });
        return NEVER;
      }
    }),
    schema,
  );
