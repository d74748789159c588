import { describe, expect, it } from 'vitest';
import { predictLabels, scoreLabels } from '../../../../packages/eval/src/cloud-opsbench/benchmark-labels.ts';

const candidates = {
  objects: [
    'app/ts-order-service',
    'app/ts-order-other-service',
    'app/tsdb-mysql',
    'node/worker-01',
    'namespace/train-ticket',
  ],
  labels: ['db_read_only', 'mysql_invalid_port', 'mysql_invalid_credentials', 'node_network_delay'],
};

describe('predictLabels', () => {
  it.each([
    [
      '故障对象 app/ts-order-other-service，根因 mysql_invalid_port。',
      'app/ts-order-other-service',
      'mysql_invalid_port',
    ],
    [
      'ts-order-service 的 Pod ts-order-service-57d9f6ffbd-x2k9p 因 mysql_invalid_credentials 启动失败',
      'app/ts-order-service',
      'mysql_invalid_credentials',
    ],
    ['node/worker-01 延迟升高（node_network_delay），影响 ts-order-service', 'node/worker-01', 'node_network_delay'],
    ['tsdb-mysql 处于只读：db_read_only', 'app/tsdb-mysql', 'db_read_only'],
    ['ts-order-service-extra 不是候选；mysql_invalid_port_x 也不是标签', null, null],
    ['没有可读的标签', null, null],
  ])('reads %s', (conclusion, faultObject, rootCause) => {
    expect(predictLabels(conclusion, candidates)).toEqual({ faultObject, rootCause });
  });

  it('reads nothing from a run without a conclusion', () => {
    expect(predictLabels(null, candidates)).toEqual({ faultObject: null, rootCause: null });
  });

  it('takes the earliest mention, the longer name at one position', () => {
    expect(
      predictLabels(
        'mysql_invalid_port 先于 mysql_invalid_credentials；ts-order-other-service 与 ts-order-service',
        candidates,
      ),
    ).toEqual({
      faultObject: 'app/ts-order-other-service',
      rootCause: 'mysql_invalid_port',
    });
  });
});

describe('scoreLabels', () => {
  it('scores the component, the fault and both as the benchmark does', () => {
    const truth = { faultObject: 'app/ts-order-service', rootCause: 'mysql_invalid_port' };
    expect(scoreLabels('app/ts-order-service：mysql_invalid_port', candidates, truth)).toMatchObject({
      component: true,
      fault: true,
      joint: true,
    });
    expect(scoreLabels('app/ts-order-service：mysql_invalid_credentials', candidates, truth)).toMatchObject({
      component: true,
      fault: false,
      joint: false,
    });
    expect(scoreLabels(null, candidates, truth)).toMatchObject({ component: false, fault: false, joint: false });
  });
});
