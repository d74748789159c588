/**
 * The settings the commands read, for `diagnosis <command> --help`: one line each, with the form the value takes
 * (from the settings' own schema where it has one). Precedence, for every command: a flag, then the environment, then
 * a `.env` file in the working directory, then the default.
 */
import { settingDescription, settingForm } from '@diagnosis/core/config';

const MEANING: Record<string, string> = {
  DIAGNOSIS_MODEL_PROFILE: 'the provider profile: base URL, model, JSON mode of the Draft, prices (default deepseek)',
  DIAGNOSIS_MODEL_API_KEY: 'the model key (never printed)',
  DIAGNOSIS_MODEL_BASE_URL: "the model endpoint (default: the profile's)",
  DIAGNOSIS_MODEL_ID: "the model (default: the profile's)",
  DIAGNOSIS_MODEL_TIMEOUT_MS: 'the time limit of one model request',
  SEMANTIC_GUARD: 'the judge: enforce, shadow or off',
  SEMANTIC_GUARD_MODEL_PROFILE: "the judge's provider profile (default: the agent's)",
  SEMANTIC_GUARD_MODEL_ID: "the judge's model (default: the agent's)",
  MYSQL_URL: 'the MySQL of query_mysql (unset: query_mysql answers NOT_CONFIGURED)',
  DYNAMODB_ENDPOINT: "another DynamoDB (default: this data folder's DynamoDB Local)",
  DIAGNOSIS_TABLE_NAME: 'the table (default diagnosis-local)',
  DIAGNOSIS_LOCAL_DATA: 'where the local data lives (default .data in the project)',
  DIAGNOSIS_TIMEZONE: 'the time zone the model reads the start time in (default Asia/Shanghai)',
  DIAGNOSIS_MAX_QUERY_BYTES: 'the largest query, checked before anything starts',
  MASKING: 'what the tool boundary masks: identifiers (the default) or secrets-only',
  MASKING_PATTERNS: "the stage's own identifier patterns",
  MASKING_EXCLUSIONS: 'values never masked',
  MASKING_SECRET: "the pseudonyms' key (never printed; default: the development key of local runs)",
  EVAL_PRICE: 'the eval: USD per million tokens, input=…,cached=…,output=…',
  SLACK_API_URL: "serve: the Slack Web API the apps call (default Slack's own; a loopback one ends in /api/)",
  SLACK_TIMEOUT_MS: 'serve: the limit of one Slack Web API call (default 5000)',
  TENANT_ACCESS: 'serve: who may use which enterprise (unset: every caller, every enterprise)',
  ALERTMANAGER_WEBHOOK_TOKEN: "serve: the bearer token Alertmanager's http_config sends (unset: its route refuses all)",
  PAGERDUTY_WEBHOOK_SECRETS:
    "serve: the PagerDuty subscription's signing secrets, comma-separated (unset: its route refuses all)",
  EVAL_MYSQL_URL: 'the eval: a MySQL that may create and drop databases (default: the local MariaDB when it answers)',
  MYSQL_CATALOG_PATH: "eval capture: the deployment's catalog of named queries (default: the example world's)",
};

/** The forms of the settings no schema of the core's settings describes (the trigger's webhook secrets). */
const FORM: Record<string, string> = {
  ALERTMANAGER_WEBHOOK_TOKEN: '16 to 512 printable ASCII characters, no spaces',
  PAGERDUTY_WEBHOOK_SECRETS: 'one to five secrets of 16 to 512 characters each',
};

/**
 * The help entries of these settings: each key with what it is for (its meaning here, else the schema's own
 * description) and the form it takes (never for a key: its form would only say "a non-empty text").
 */
export function settingHelpLines(keys: readonly string[]): [string, string][] {
  return keys.map((key) => {
    const form = FORM[key] ?? settingForm(key);
    const meaning = MEANING[key] ?? settingDescription(key) ?? '';
    const secret = key.endsWith('_API_KEY');
    return [key, `${meaning}${form === undefined || secret ? '' : `; ${form}`}`];
  });
}
