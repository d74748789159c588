export {
  canAccessTenant,
  type IamCaller,
  parseTenantAccess,
  type TenantAccessPolicy,
  type TenantAccessRule,
} from '../access/tenant-access.ts';
export { type ChangeSourceMapping, changeSecretNames, changeSourcesSchema } from '../change/change-sources.ts';
export { findTriggerMappingFaults } from '../trigger/trigger-mapping-faults.ts';
export {
  mappingsOverQueryLimit,
  type TriggerMapping,
  triggerMappingsSchema,
  webhookSecretNames,
} from '../trigger/trigger-mappings.ts';
export { type ChangeSettings, parseChangeSettings } from './change-settings.ts';
/** `@diagnosis/core/config`: one valibot schema for all settings, parsed by the handlers and handed in. */
export {
  DEFAULT_MODEL_BASE_URL,
  type DiagnosisSettingKey,
  type DiagnosisSettings,
  diagnosisSettingKeys,
  type FeedbackSettings,
  limitsOf,
  parseDiagnosisSettings,
  parseFeedbackSettings,
  parseTriggerSettings,
  serviceSettingNames,
  settingDefault,
  settingDescription,
  settingForm,
  type TriggerSettings,
} from './diagnosis-settings.ts';
export {
  type EvidenceSettings,
  evidenceSettingsSchema,
  parseEvidenceSettings,
  SettingsError,
} from './evidence-settings.ts';
export {
  DRAFT_FORMATS,
  type DraftFormat,
  MODEL_PROFILE_NAMES,
  MODEL_PROFILES,
  type ModelPrice,
  type ModelProfile,
  type ModelProfileName,
  modelProfile,
  providerJsonSchema,
} from './model-profiles.ts';
export {
  parseStoreSettings,
  parseWorkflowSettings,
  type StoreSettings,
  type WorkflowSettings,
} from './store-settings.ts';
