/**
 * A recording stand-in for the globals SST gives `sst.config.ts` (`$config`, `$app`, `$cli`, `sst.*`, `aws.*`,
 * `$interpolate`, `$jsonStringify`), so a test can run the config's real `run()` offline: every resource it creates is
 * recorded with its arguments, and deployed names and ARNs are predictable strings. Pulumi outputs are `FakeOutput`s
 * (`apply` works); `resolveOutputs` turns any recorded argument into plain data.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export class FakeOutput<T = unknown> {
  readonly value: T;
  constructor(value: T) {
    this.value = value;
  }
  apply<U>(transform: (value: T) => U): FakeOutput<U> {
    return new FakeOutput(transform(this.value));
  }
}

/** Plain data from anything holding fake outputs (deeply). */
export function resolveOutputs(value: unknown): unknown {
  if (value instanceof FakeOutput) return resolveOutputs(value.value);
  if (Array.isArray(value)) return value.map(resolveOutputs);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveOutputs(item)]));
  }
  return value;
}

export interface RecordedResource {
  type: string;
  name: string;
  args: Record<string, unknown>;
}

export interface FakePlatform {
  resources: RecordedResource[];
  /** Every `route` call: the API it was made on (its logical name), the route key, the handler and the arguments. */
  routes: { api: string; route: string; handler: unknown; args: unknown }[];
  /** `subscribe` / `subscribeQueue` calls of a table, queue or bus: who subscribed what, with which arguments. */
  subscriptions: { source: string; method: string; args: unknown[] }[];
  /** The recorded resources of one type (e.g. `sst.aws.Function`, `aws.cloudwatch.MetricAlarm`), arguments resolved. */
  ofType(type: string): RecordedResource[];
  /** What `run()` returned (the deploy's outputs), resolved; set by {@link runSstConfigOn}. */
  outputs?: unknown;
}

export const FAKE_ACCOUNT = '123456789012';
export const FAKE_REGION = 'eu-west-1';

/** Installs the fake globals for one app stage and root; returns what the config records. */
export function installFakeSstPlatform(stage: string, root: string): FakePlatform {
  const resources: RecordedResource[] = [];
  const routes: FakePlatform['routes'] = [];
  const subscriptions: FakePlatform['subscriptions'] = [];
  const app = { name: 'diagnosis-agent', stage };
  const deployed = (name: string) => `${app.name}-${stage}-${name}`;

  const resourceClass = (type: string, service: string) =>
    class {
      readonly name: FakeOutput<string>;
      readonly arn: FakeOutput<string>;
      readonly id: FakeOutput<string>;
      readonly url: FakeOutput<string>;
      readonly nodes: { api: { id: FakeOutput<string> }; queue: { name: FakeOutput<string> } };
      readonly source: string;
      constructor(name: string, args: Record<string, unknown> = {}) {
        resources.push({ type, name, args });
        this.name = new FakeOutput(deployed(name));
        this.arn = new FakeOutput(`arn:aws:${service}:${FAKE_REGION}:${FAKE_ACCOUNT}:${deployed(name)}`);
        this.id = new FakeOutput(`${name.toLowerCase()}-id`);
        this.url = new FakeOutput(`https://${name.toLowerCase()}.execute-api.${FAKE_REGION}.amazonaws.com`);
        this.nodes = {
          api: { id: new FakeOutput(`${name.toLowerCase()}-api-id`) },
          queue: { name: new FakeOutput(deployed(name)) },
        };
        this.source = name;
      }
      subscribe(...args: unknown[]) {
        subscriptions.push({ source: this.source, method: 'subscribe', args });
      }
      subscribeQueue(...args: unknown[]) {
        subscriptions.push({ source: this.source, method: 'subscribeQueue', args });
      }
      route(route: string, handler: unknown, args: unknown) {
        routes.push({ api: this.source, route, handler, args });
        // What SST returns: the route component, whose `nodes.route` is the API Gateway route.
        return { nodes: { route: { api: this.source, routeKey: route } } };
      }
    };

  const globals: Record<string, unknown> = {
    $config: (config: unknown) => config,
    $app: app,
    $cli: { paths: { root } },
    $interpolate: (strings: TemplateStringsArray, ...values: unknown[]) =>
      new FakeOutput(
        strings.reduce((text, part, index) => text + part + String(resolveOutputs(values[index]) ?? ''), ''),
      ),
    $jsonStringify: (value: unknown) => new FakeOutput(JSON.stringify(resolveOutputs(value))),
    sst: {
      Secret: resourceClass('sst.Secret', 'ssm'),
      aws: {
        Dynamo: resourceClass('sst.aws.Dynamo', 'dynamodb'),
        Function: resourceClass('sst.aws.Function', 'lambda'),
        ApiGatewayV2: resourceClass('sst.aws.ApiGatewayV2', 'execute-api'),
        Bucket: resourceClass('sst.aws.Bucket', 's3'),
        SnsTopic: resourceClass('sst.aws.SnsTopic', 'sns'),
        Bus: resourceClass('sst.aws.Bus', 'events'),
        Queue: resourceClass('sst.aws.Queue', 'sqs'),
      },
    },
    aws: {
      getCallerIdentityOutput: () => ({ accountId: new FakeOutput(FAKE_ACCOUNT) }),
      getRegionOutput: () => ({ region: new FakeOutput(FAKE_REGION) }),
      getPartitionOutput: () => ({ partition: new FakeOutput('aws') }),
      kms: { Key: resourceClass('aws.kms.Key', 'kms') },
      iam: {
        Role: resourceClass('aws.iam.Role', 'iam'),
        assumeRolePolicyForPrincipal: (principal: unknown) => ({ principal }),
      },
      sfn: { StateMachine: resourceClass('aws.sfn.StateMachine', 'states') },
      lambda: {
        Permission: resourceClass('aws.lambda.Permission', 'lambda'),
        FunctionEventInvokeConfig: resourceClass('aws.lambda.FunctionEventInvokeConfig', 'lambda'),
      },
      sns: { TopicSubscription: resourceClass('aws.sns.TopicSubscription', 'sns') },
      cloudwatch: {
        LogGroup: resourceClass('aws.cloudwatch.LogGroup', 'logs'),
        EventRule: resourceClass('aws.cloudwatch.EventRule', 'events'),
        EventTarget: resourceClass('aws.cloudwatch.EventTarget', 'events'),
        MetricAlarm: resourceClass('aws.cloudwatch.MetricAlarm', 'cloudwatch'),
        Dashboard: resourceClass('aws.cloudwatch.Dashboard', 'cloudwatch'),
      },
    },
  };
  Object.assign(globalThis, globals);
  return {
    resources,
    routes,
    subscriptions,
    ofType: (type) =>
      resources
        .filter((resource) => resource.type === type)
        .map((resource) => ({ ...resource, args: resolveOutputs(resource.args) as Record<string, unknown> })),
  };
}

const SST_CONFIG = resolve(import.meta.dirname, '../../sst.config.ts');

/**
 * `sst.config.ts`'s real `run()` on a project root of its own whose `deploy/dev.json` is `stageFile` (with the
 * example folders and the build script the config reads), under the stand-in platform. `roots` collects the folders
 * made, for the caller's `afterAll` to remove.
 */
export async function runSstConfigOn(stageFile: unknown, roots: string[]): Promise<FakePlatform> {
  const root = mkdtempSync(join(tmpdir(), 'sst-config-'));
  roots.push(root);
  mkdirSync(join(root, 'deploy'));
  for (const folder of ['examples/mysql', 'examples/knowledge', 'examples/logs']) {
    mkdirSync(join(root, folder), { recursive: true });
  }
  writeFileSync(join(root, 'examples/mysql/catalog.json'), '[]');
  writeFileSync(join(root, 'package.json'), JSON.stringify({ scripts: { 'build:functions': 'node -e ""' } }));
  writeFileSync(join(root, 'deploy', 'dev.json'), JSON.stringify(stageFile));
  const platform = installFakeSstPlatform('dev', root);
  const config = (await import(/* @vite-ignore */ SST_CONFIG)) as {
    default: { run(): Promise<Record<string, unknown>> };
  };
  platform.outputs = resolveOutputs(await config.default.run());
  return platform;
}
