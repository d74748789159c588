/**
 * `@diagnosis/functions/infrastructure`: what the infrastructure code (`sst.config.ts`, `deploy/`) reads of the
 * functions, so an alarm, a dashboard widget or a queue setting names exactly what the code emits and parses: the
 * metric names and dimensions, the delivery retry limits, the delivery settings and destination names.
 */
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
export * from './setup/metric-names.ts';
