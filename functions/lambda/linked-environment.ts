import { Resource } from 'sst/resource';

/**
 * The process environment with SST's linked resources merged in: the table name, the model and judge keys and the
 * MySQL URL come from `Resource` when the function is deployed with SST, and from plain environment variables
 * elsewhere (local runs, tests). Only the handlers read `Resource` or `process.env`; the core never does.
 */
export function readLinkedEnvironment(
  environment: NodeJS.ProcessEnv = process.env,
): Record<string, string | undefined> {
  const merged: Record<string, string | undefined> = { ...environment };
  const table = linked<{ name?: unknown }>('DiagnosisTable');
  if (typeof table?.name === 'string') merged.DIAGNOSIS_TABLE_NAME = table.name;
  const key = linked<{ value?: unknown }>('ModelApiKey');
  if (typeof key?.value === 'string' && key.value !== '') merged.DIAGNOSIS_MODEL_API_KEY = key.value;
  // NOTE: the judge's own key (another provider's); "none": the judge uses the model key, as without the secret.
  const judge = linked<{ value?: unknown }>('JudgeApiKey');
  if (typeof judge?.value === 'string' && judge.value !== '' && judge.value !== 'none') {
    merged.SEMANTIC_GUARD_MODEL_API_KEY = judge.value;
  }
  const masking = linked<{ value?: unknown }>('MaskingKey');
  if (typeof masking?.value === 'string' && masking.value !== '') merged.MASKING_SECRET = masking.value;
  const mysql = linked<{ value?: unknown }>('MysqlUrl');
  // NOTE: an SST secret cannot be empty; "none" stands for "no MySQL", and query_mysql then answers NOT_CONFIGURED.
  if (typeof mysql?.value === 'string' && mysql.value !== '' && mysql.value !== 'none') merged.MYSQL_URL = mysql.value;
  // NOTE: the webhook secrets are SST secrets ("none": that source's route refuses every request).
  const alertmanager = linked<{ value?: unknown }>('AlertmanagerWebhookToken');
  if (typeof alertmanager?.value === 'string' && alertmanager.value !== '' && alertmanager.value !== 'none') {
    merged.ALERTMANAGER_WEBHOOK_TOKEN = alertmanager.value;
  }
  const pagerduty = linked<{ value?: unknown }>('PagerDutyWebhookSecrets');
  if (typeof pagerduty?.value === 'string' && pagerduty.value !== '' && pagerduty.value !== 'none') {
    merged.PAGERDUTY_WEBHOOK_SECRETS = pagerduty.value;
  }
  return merged;
}

/** A linked SST secret's value (`Resource[name].value`), or undefined when it is not linked. */
export function readLinkedSecret(name: string): string | undefined {
  const secret = linked<{ value?: unknown }>(name);
  return typeof secret?.value === 'string' ? secret.value : undefined;
}

function linked<T>(name: string): T | undefined {
  try {
    return name in Resource ? ((Resource as unknown as Record<string, T>)[name] ?? undefined) : undefined;
  } catch {
    return undefined;
  }
}
