/// <reference path="./.sst/platform/config.d.ts" />

/**
 * The Diagnosis Agent on AWS: one DynamoDB table, the model key and MySQL URL as secrets, the Diagnose function,
 * the DiagnosisWorkflow and DiagnosisBatch state machines that invoke it, an IAM-only InternalApi with the read
 * and audit functions, an IngressApi for the senders outside AWS (Slack, incident webhooks; each route checks its
 * sender's own credential), and alarms (to an SNS topic) and a dashboard.
 * Deploy with `npx sst deploy --stage prod`; the `prod` stage keeps and protects its data. A stage's settings come
 * from `deploy/<stage>.json` (see deploy/stage-config.ts), never from the deploying shell. Each capability's
 * resources and grants are built by its module in deploy/resources/; this file only puts them together.
 */
export default $config({
  app(input) {
    const production = input?.stage === 'prod';
    return {
      name: 'diagnosis-agent',
      home: 'aws',
      removal: production ? 'retain' : 'remove',
      protect: production,
    };
  },
  async run() {
    const { functionCode } = await import('./scripts/lambda-functions.ts');
    const { writeKnowledgeIndex } = await import('./scripts/build-knowledge-index.ts');
    const { loadStage } = await import('./deploy/resources/stage.ts');
    const { createStorage } = await import('./deploy/resources/table.ts');
    const { createDiagnose, createSecrets } = await import('./deploy/resources/diagnose.ts');
    const { createApis, createRunRoutes } = await import('./deploy/resources/api.ts');
    const { createSweeper, createWorkflowStopped, createWorkflows } = await import('./deploy/resources/workflow.ts');
    const { createDelivery } = await import('./deploy/resources/delivery.ts');
    const { createTriggers } = await import('./deploy/resources/triggers.ts');
    const { createChanges } = await import('./deploy/resources/changes.ts');
    const { createSlack } = await import('./deploy/resources/slack.ts');
    const { createMonitoring } = await import('./deploy/resources/monitoring.ts');

    const stage = loadStage($app.stage === 'prod', { functionCode, writeKnowledgeIndex });
    const storage = createStorage(stage);
    const secrets = createSecrets();
    const diagnose = await createDiagnose(stage, storage, secrets);
    const apis = createApis(stage, storage, secrets);
    const workflows = createWorkflows(stage, diagnose);
    const runRoutes = createRunRoutes(stage, storage, secrets, apis, workflows);
    const onWorkflowStopped = createWorkflowStopped(stage, storage, workflows);
    const delivery = createDelivery(stage, storage, secrets, apis.api);
    const sweepRuns = createSweeper(stage, storage);
    const triggers = createTriggers(stage, storage, secrets, apis, workflows);
    const changes = createChanges(stage, storage, apis);
    const slack = createSlack(stage, storage, secrets, apis, workflows, runRoutes);
    // Every ingress route is created: the IngressApi's stage may now name them.
    apis.ingressRoutesCreated();
    const { alarmTopic, dashboardName } = createMonitoring(stage, storage, {
      apis,
      workflows,
      delivery,
      triggers,
      functions: {
        Diagnose: diagnose,
        StartDiagnosis: runRoutes.functions.StartDiagnosis,
        CancelRun: runRoutes.functions.CancelRun,
        ...apis.readers,
        RunFeedback: runRoutes.functions.RunFeedback,
        PastIncidents: runRoutes.functions.PastIncidents,
        OnWorkflowStopped: onWorkflowStopped,
        ...delivery.functions,
        SweepRuns: sweepRuns,
        ...triggers.functions,
        ...slack,
        ...changes,
      },
    });

    return {
      api: apis.api.url,
      // What Slack's app manifest and the webhook senders are given (docs/chat.md, docs/triggers.md).
      ingress: apis.ingress.url,
      table: storage.table.name,
      workflow: workflows.workflow.arn,
      batch: workflows.batch.arn,
      batchInput: workflows.batchInput.name,
      alarmTopic: alarmTopic.arn,
      resultsBus: delivery.resultsBus.name,
      deliveryDeadLetters: delivery.deadLetters.url,
      dashboard: $interpolate`https://${stage.region}.console.aws.amazon.com/cloudwatch/home?region=${stage.region}#dashboards/dashboard/${dashboardName}`,
    };
  },
});
