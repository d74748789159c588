import * as v from 'valibot';
import { SettingsError } from '../errors.ts';
import { builtOnce } from './built-once.ts';

export { SettingsError };

/**
 * Which backend serves each evidence tool, and its settings, read from environment variables (names as in
 * docs/settings.md, which shows each one's `description`). Unknown values are refused at cold start with the key named.
 * Built on first use: only Diagnose (and the settings' documentation) parses with it.
 */
export const evidenceSettingsSchema = /* @__PURE__ */ builtOnce(() => {
  const positiveInteger = v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number), v.safeInteger(), v.minValue(1));
  /**
   * NOTE: a log group name as CloudWatch Logs defines it (1–512 of `[.\-_/#A-Za-z0-9]`). The deploy builds the IAM
   * resources of `logs:StartQuery` from these names, so a `*` (or anything else) here must never reach an ARN.
   */
  const logGroupName = v.pipe(v.string(), v.regex(/^[.\-_/#A-Za-z0-9]{1,512}$/));
  const logGroups = v.pipe(
    v.string(),
    v.parseJson(),
    v.record(v.pipe(v.string(), v.minLength(1)), v.array(logGroupName)),
  );

  return v.object({
    KNOWLEDGE_BACKEND: v.optional(
      v.pipe(
        v.picklist(['local', 'bedrock']),
        v.description('`local` (Markdown runbooks) or `bedrock` (Amazon Bedrock Knowledge Bases)'),
      ),
      'local',
    ),
    KNOWLEDGE_DIR: v.optional(
      v.pipe(
        v.string(),
        v.minLength(1),
        v.description('Folder of `*.md` runbooks with front matter (docs/evidence.md)'),
      ),
      'examples/knowledge',
    ),
    KNOWLEDGE_INDEX_PATH: v.optional(
      v.pipe(
        v.string(),
        v.minLength(1),
        v.description('A prebuilt knowledge index (`npm run knowledge:index`; the deploy builds it)'),
      ),
    ),
    BEDROCK_KNOWLEDGE_BASE_ID: v.optional(
      v.pipe(v.string(), v.regex(/^[0-9A-Za-z]{1,20}$/), v.description('The knowledge base; required with `bedrock`')),
    ),
    LOGS_BACKEND: v.optional(
      v.pipe(
        v.picklist(['local', 'cloudwatch']),
        v.description('`local` (JSON Lines files) or `cloudwatch` (CloudWatch Logs Insights)'),
      ),
      'local',
    ),
    LOGS_DIR: v.optional(
      v.pipe(v.string(), v.minLength(1), v.description('Folder of `*.jsonl` log files (docs/evidence.md)')),
      'examples/logs',
    ),
    LOGS_GROUPS: v.optional(
      v.pipe(logGroups, v.description('Required with `cloudwatch`; a service without groups is `INVALID_QUERY`')),
      '{}',
    ),
    LOGS_TENANT_FIELD: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^[A-Za-z_@][A-Za-z0-9_.@-]{0,63}$/),
        v.description('The structured-log field that carries the tenant'),
      ),
      'enterprise_id',
    ),
    // NOTE: checked to parse here, so a URL that does not fails the cold start naming the key; the parser's own error
    // would carry the whole URL, password included.
    MYSQL_URL: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^mysql:\/\//, 'a mysql:// URL'),
        v.check((url) => URL.canParse(url), 'a URL'),
        v.description('A user with SELECT grants only (deployed: secret `MysqlUrl`); unset: `NOT_CONFIGURED`'),
      ),
    ),
    MYSQL_CATALOG_PATH: v.optional(
      v.pipe(v.string(), v.minLength(1), v.description('The catalog of named queries (docs/evidence.md)')),
      'examples/mysql/catalog.json',
    ),
    MYSQL_DIALECT: v.optional(
      v.pipe(v.picklist(['auto', 'mariadb', 'mysql']), v.description('`auto` asks `SELECT VERSION()` once')),
      'auto',
    ),
    MYSQL_STATEMENT_TIMEOUT_MS: v.optional(
      v.pipe(positiveInteger, v.description('Server-side limit of one statement')),
      '5000',
    ),
    MYSQL_POOL_SIZE: v.optional(v.pipe(positiveInteger, v.description('Connections per Lambda instance')), '4'),
  });
});

export type EvidenceSettings = v.InferOutput<ReturnType<typeof evidenceSettingsSchema>>;

/** Parses settings; on failure, the message names only the bad keys, never their values (they may be secrets). */
export function parseEvidenceSettings(environment: Record<string, string | undefined>): EvidenceSettings {
  const schema = evidenceSettingsSchema();
  const result = v.safeParse(schema, pickDefined(environment, schema));
  if (!result.success) throw new SettingsError(badKeys(result.issues));
  const settings = result.output;
  const missing: string[] = [];
  if (settings.KNOWLEDGE_BACKEND === 'bedrock' && settings.BEDROCK_KNOWLEDGE_BASE_ID === undefined) {
    missing.push('BEDROCK_KNOWLEDGE_BASE_ID');
  }
  if (settings.LOGS_BACKEND === 'cloudwatch' && Object.keys(settings.LOGS_GROUPS).length === 0)
    missing.push('LOGS_GROUPS');
  if (missing.length > 0) throw new SettingsError(missing);
  return settings;
}

export function badKeys(issues: readonly v.BaseIssue<unknown>[]): string[] {
  return [...new Set(issues.map((issue) => String(issue.path?.[0]?.key ?? '(root)')))];
}

/** The non-empty environment values of the keys a settings schema knows (unset and empty mean "use the default"). */
export function pickDefined(
  environment: Record<string, string | undefined>,
  schema: { entries: Record<string, unknown> },
): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(schema.entries)) {
    const value = environment[key];
    if (value !== undefined && value !== '') picked[key] = value;
  }
  return picked;
}
