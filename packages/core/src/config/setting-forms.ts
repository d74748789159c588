/**
 * What form each setting accepts, in words, for the one line that refuses a bad value: the key and its form, never
 * the value (it may be a secret). Read from the settings' own valibot schemas, so the words cannot drift from the
 * check; a few settings whose check is code (a JSON policy, a time zone) have their form written here.
 */

interface SchemaLike {
  type: string;
  wrapped?: SchemaLike;
  options?: readonly unknown[];
  pipe?: readonly { type: string; requirement?: unknown }[];
}

const WRITTEN: Record<string, string> = {
  TENANT_ACCESS: 'a JSON tenant access policy (see docs/security.md)',
  LOGS_GROUPS: 'a JSON object of service → list of CloudWatch log group names',
  DIAGNOSIS_TIMEZONE: 'an IANA time zone such as Asia/Shanghai',
  MYSQL_URL: 'a mysql:// URL',
  MASKING_PATTERNS: 'a JSON list of { kind, pattern } (RE2)',
  MASKING_EXCLUSIONS: 'a JSON list of RE2 patterns',
  DIAGNOSIS_WORKFLOW_ARN: 'a Step Functions state machine ARN',
  DIAGNOSIS_TABLE_NAME: '3 to 255 letters, digits and _ . -',
  DIAGNOSIS_MODEL_API_KEY: 'printable ASCII, no spaces: what an HTTP header carries (a copied `…` is not)',
  SEMANTIC_GUARD_MODEL_API_KEY: 'printable ASCII, no spaces: what an HTTP header carries (a copied `…` is not)',
};

/** The form a setting accepts, from its schema (`undefined` for a key no schema has). */
export function describeSettingForm(
  key: string,
  schemas: readonly { entries: Record<string, unknown> }[],
): string | undefined {
  const written = WRITTEN[key];
  if (written !== undefined) return written;
  const schema = schemas.map((candidate) => candidate.entries[key]).find((entry) => entry !== undefined);
  return schema === undefined ? undefined : describeSchema(schema as SchemaLike);
}

/** A pipe's actions, with those of a piped schema inside it (`v.pipe(integer(1), v.maxValue(256))`) in place. */
function flatten(schema: SchemaLike): { type: string; requirement?: unknown }[] {
  return (schema.pipe ?? []).flatMap((action) =>
    'pipe' in action && action !== schema ? flatten(action as SchemaLike) : [action],
  );
}

function describeSchema(schema: SchemaLike): string {
  const inner = schema.type === 'optional' && schema.wrapped !== undefined ? schema.wrapped : schema;
  if (inner.type === 'picklist' && inner.options !== undefined) return `one of ${inner.options.join(', ')}`;
  const actions = flatten(inner);
  const has = (type: string) => actions.some((action) => action.type === type);
  const requirement = (type: string) => actions.find((action) => action.type === type)?.requirement;
  if (has('transform') && has('safe_integer')) {
    const minimum = requirement('min_value');
    const maximum = requirement('max_value');
    if (typeof maximum === 'number' && maximum < Number.MAX_SAFE_INTEGER) {
      return `a whole number from ${minimum ?? 0} to ${maximum}`;
    }
    return `a whole number of at least ${minimum ?? 0}`;
  }
  if (has('url')) return 'an http:// or https:// URL';
  const minLength = requirement('min_length');
  const maxLength = requirement('max_length');
  if (typeof maxLength === 'number') return `text of ${minLength ?? 0} to ${maxLength} characters`;
  if (has('regex')) return `text matching ${String(requirement('regex'))}`;
  return 'a non-empty text';
}
