/**
 * `@diagnosis/functions/infrastructure`: what the infrastructure code (`sst.config.ts`, `deploy/`) reads of the
 * functions, so an alarm, a dashboard widget or a queue setting names exactly what the code emits and parses: the
 * metric names and dimensions, the delivery retry limits, the delivery and Slack settings, destination and secret names,
 * and what a rating needs of the table and the settings (the functions that record ratings get exactly that).
 */
export { CLOUDTRAIL_NOISE_SOURCES } from './changes/cloudtrail-noise-sources.ts';
export * from './delivery/delivery-metric-names.ts';
export { DELIVERY_SETTING_NAMES } from './delivery/delivery-settings.ts';
export {
  DESTINATION_TYPES,
  type DeliverySettings,
  type DestinationConfig,
  type DestinationType,
  deliverySettingsSchema,
  destinationSecretNames,
  type RuntimeDestination,
  type RuntimeDestinations,
  revealEnterprises,
  runtimeDestinationsSchema,
  snsTopicResourceName,
} from './delivery/destinations.ts';
export {
  ITEM_KINDS,
  type ItemGroup,
  type ItemKind,
  type PartitionName,
  partitionPatterns,
  TABLE_PARTITIONS,
} from './lambda/item-kinds.ts';
export * from './lambda/metric-names.ts';
export { RATING_SETTING_NAMES, RATING_TABLE_ACCESS } from './ratings/rating-access.ts';
export { SLACK_FUNCTION_SETTING_NAMES } from './slack/slack-function-settings.ts';
export {
  parseStageSlack,
  runtimeSlackAppsSchema,
  SLACK_APP_ID_PATTERN,
  SLACK_CHANNEL_ID_PATTERN,
  SLACK_SECRET_NAME_PATTERN,
  type SlackAppConfig,
  type SlackSettings,
  slackSecretNames,
  slackSettingsSchema,
} from './slack/slack-settings.ts';
