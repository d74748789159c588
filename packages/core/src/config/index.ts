export {
  canAccessTenant,
  type IamCaller,
  parseTenantAccess,
  type TenantAccessPolicy,
  type TenantAccessRule,
} from '../access/tenant-access.ts';
export {
  type TriggerMapping,
  triggerMappingsSchema,
} from '../trigger/trigger-mappings.ts';
/** `@diagnosis/core/config`: one valibot schema for all settings, parsed by the handlers and handed in. */
export {
  DEFAULT_MODEL_BASE_URL,
  DIAGNOSIS_SETTING_KEYS,
  type DiagnosisSettingKey,
  type DiagnosisSettings,
  limitsOf,
  parseDiagnosisSettings,
  parseStoreSettings,
  parseTriggerSettings,
  parseWorkflowSettings,
  type StoreSettings,
  type TriggerSettings,
  type WorkflowSettings,
} from './diagnosis-settings.ts';
export {
  type EvidenceSettings,
  evidenceSettingsSchema,
  parseEvidenceSettings,
  SettingsError,
} from './evidence-settings.ts';
