/* This file is normally written by `sst deploy`; it is kept by hand here because no deploy runs offline. */
/* deno-fmt-ignore-file */

import 'sst';
declare module 'sst' {
  export interface Resource {
    Diagnose: { name: string; type: 'sst.aws.Function' };
    DiagnosisTable: { name: string; type: 'sst.aws.Dynamo' };
    DiagnosisWorkflow: { arn: string; name: string; type: 'sst.aws.StepFunctions' };
    GetRun: { name: string; type: 'sst.aws.Function' };
    GetRunAudit: { name: string; type: 'sst.aws.Function' };
    GetRunReveal: { name: string; type: 'sst.aws.Function' };
    InternalApi: { type: 'sst.aws.ApiGatewayV2'; url: string };
    AlertmanagerWebhookToken: { type: 'sst.sst.Secret'; value: string };
    MaskingKey: { type: 'sst.sst.Secret'; value: string };
    ModelApiKey: { type: 'sst.sst.Secret'; value: string };
    MysqlUrl: { type: 'sst.sst.Secret'; value: string };
    PagerDutyWebhookSecrets: { type: 'sst.sst.Secret'; value: string };
  }
}
export {};
