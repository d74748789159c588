/**
 * Regenerates the example world's data (`examples/logs/*.jsonl`, `examples/mysql/seed.sql`) deterministically.
 * The incident: on 2026-11-30 at 13:58 (+08:00) payment-gateway 2.14.0 is deployed for E1001 with its database pool
 * shrunk from 50 to 5 connections; from 14:05 order-service's payment calls time out and E1001's orders fail.
 * E2002 has no incident, only noise that shares words with it ("pool", "timeout").
 * Run: `node scripts/generate-examples.ts`.
 * NOTE: over ~300 lines on purpose: it is the whole example world as one story (incident, noise, tenants, seed), so
 * every timestamp and id that the runbooks, logs and rows share is written in one place.
 */
import { mkdirSync, writeFileSync } from 'node:fs';

const DAY_START = Date.parse('2026-11-29T16:00:00Z'); // 2026-11-30 00:00 +08:00
const DAY_END = Date.parse('2026-11-30T16:00:00Z');
const DEPLOY = Date.parse('2026-11-30T05:58:00Z'); // 13:58 +08:00
const INCIDENT = Date.parse('2026-11-30T06:05:00Z'); // 14:05 +08:00

let seed = 20261130;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
/**
 * Synthetic personal data where real order logs carry it (the customer's phone, the client's IP, an e-mail address),
 * derived from the order number, not from `random()`, so the rest of the world stays exactly as it was. Masking shows
 * the model only pseudonyms of these (docs/masking.md). All of it is made up.
 */
const customerPhone = (order: number) =>
  `1${'3589'[order % 4]}${String((order * 7_368_787 + 12_345) % 1_000_000_000).padStart(9, '0')}`;
const clientIp = (order: number) =>
  `${[36, 58, 101, 113, 183, 223][order % 6]}.${(order * 37) % 256}.${(order * 91) % 256}.${1 + (order % 253)}`;
const customerEmail = (order: number) =>
  `${['wang.fang', 'li.na', 'zhang.wei', 'liu.yang', 'chen.jing'][order % 5]}${order}@example.cn`;
const traceId = () => Array.from({ length: 16 }, () => '0123456789abcdef'[between(0, 15)]).join('');

interface Line {
  timestamp: string;
  level: 'INFO' | 'WARN' | 'ERROR';
  service: string;
  enterprise_id: string;
  trace_id?: string;
  message: string;
}
const logs: Record<string, Line[]> = { 'order-service': [], 'payment-gateway': [], 'inventory-service': [] };
const log = (
  time: number,
  service: string,
  enterprise: string,
  level: Line['level'],
  message: string,
  trace?: string,
) => {
  logs[service]?.push({
    timestamp: new Date(time).toISOString(),
    level,
    service,
    enterprise_id: enterprise,
    ...(trace === undefined ? {} : { trace_id: trace }),
    message,
  });
};

interface Order {
  id: number;
  order_id: string;
  enterprise_id: string;
  status: string;
  channel: string;
  amount: string;
  error_code: string | null;
  created_at: number;
}
const orders: Order[] = [];
let orderNumber = 0;

for (const enterprise of ['E1001', 'E2002']) {
  const spacing = enterprise === 'E1001' ? [120, 300] : [180, 420];
  for (
    let time = DAY_START + between(0, 60_000);
    time < DAY_END;
    time += between(spacing[0] ?? 120, spacing[1] ?? 300) * 1_000
  ) {
    orderNumber += 1;
    const orderId = `${enterprise}-${String(orderNumber).padStart(6, '0')}`;
    const trace = traceId();
    const channel = pick(enterprise === 'E1001' ? ['alipay', 'wechat'] : ['alipay', 'unionpay']);
    const amount = (between(990, 59_900) / 100).toFixed(2);
    const incident = enterprise === 'E1001' && time >= INCIDENT;
    let status = 'PAID';
    let errorCode: string | null = null;
    if (incident && random() < 0.86) {
      status = 'FAILED';
      errorCode = 'PAYMENT_TIMEOUT';
    } else if (random() < 0.02) {
      status = 'FAILED';
      errorCode = 'CARD_DECLINED';
    }
    orders.push({
      id: orderNumber,
      order_id: orderId,
      enterprise_id: enterprise,
      status,
      channel,
      amount,
      error_code: errorCode,
      created_at: time,
    });
    log(
      time,
      'order-service',
      enterprise,
      'INFO',
      `order created order_id=${orderId} amount=${amount} channel=${channel} user_phone=${customerPhone(orderNumber)} client_ip=${clientIp(orderNumber)}`,
      trace,
    );
    log(
      time + 40,
      'inventory-service',
      enterprise,
      'INFO',
      `stock locked order_id=${orderId} sku=SKU-${between(100, 999)} qty=${between(1, 3)}`,
      trace,
    );
    if (status === 'PAID') {
      const latency = between(80, incident ? 2_400 : 450);
      log(
        time + 60 + latency,
        'payment-gateway',
        enterprise,
        'INFO',
        `payment succeeded order_id=${orderId} channel=${channel} latency_ms=${latency}`,
        trace,
      );
      log(time + 120 + latency, 'order-service', enterprise, 'INFO', `order paid order_id=${orderId}`, trace);
    } else if (errorCode === 'PAYMENT_TIMEOUT') {
      log(
        time + 3_060,
        'payment-gateway',
        enterprise,
        'ERROR',
        'HikariPool-1 - Connection is not available, request timed out after 3000ms',
        trace,
      );
      log(
        time + 3_100,
        'order-service',
        enterprise,
        'ERROR',
        `call payment-gateway POST /v1/pay failed: 503 upstream timeout after 3000ms order_id=${orderId} error_code=PAYMENT_TIMEOUT user_phone=${customerPhone(orderNumber)}`,
        trace,
      );
      log(
        time + 3_150,
        'inventory-service',
        enterprise,
        'INFO',
        `stock released order_id=${orderId} reason=payment_failed`,
        trace,
      );
    } else {
      log(
        time + 300,
        'payment-gateway',
        enterprise,
        'WARN',
        `payment declined order_id=${orderId} channel=${channel} code=CARD_DECLINED`,
        trace,
      );
      log(
        time + 350,
        'order-service',
        enterprise,
        'WARN',
        `order failed order_id=${orderId} error_code=CARD_DECLINED notify_email=${customerEmail(orderNumber)}`,
        trace,
      );
    }
  }

  // Background noise of every service, all day.
  for (let time = DAY_START; time < DAY_END; time += between(150, 330) * 1_000) {
    log(time, 'payment-gateway', enterprise, 'INFO', `health check ok db=up active_connections=${between(2, 9)}`);
    log(
      time + 500,
      'inventory-service',
      enterprise,
      'INFO',
      `stock sync batch done items=${between(20, 400)} duration_ms=${between(40, 900)}`,
    );
    if (random() < 0.08)
      log(time + 900, 'inventory-service', enterprise, 'WARN', `stock sync lag ${(random() * 3 + 0.5).toFixed(1)}s`);
    if (random() < 0.05)
      log(
        time + 1_200,
        'order-service',
        enterprise,
        'WARN',
        `slow request GET /v1/orders latency_ms=${between(800, 1_600)}`,
      );
    if (enterprise === 'E2002' && random() < 0.12) {
      log(
        time + 1_500,
        'order-service',
        enterprise,
        'WARN',
        `redis pool busy, waited ${between(5, 40)}ms for a connection (cache only)`,
      );
    }
  }
}

// E1001: the deploy that shrank the pool, then pool saturation every minute.
log(
  DEPLOY,
  'payment-gateway',
  'E1001',
  'INFO',
  'service started version=2.14.0 db.pool.max_size=5 db.pool.connection_timeout_ms=3000',
);
for (let time = INCIDENT; time < DAY_END; time += 60_000) {
  log(
    time + between(0, 5_000),
    'payment-gateway',
    'E1001',
    'WARN',
    `HikariPool-1 - pool stats (total=5, active=5, idle=0, waiting=${between(18, 64)})`,
  );
}
// E2002: nightly reconciliation, expected.
for (let minute = 0; minute < 25; minute += 5) {
  log(
    Date.parse('2026-11-29T18:00:00Z') + minute * 60_000,
    'order-service',
    'E2002',
    'WARN',
    `reconciliation batch slow batch=${minute / 5 + 1} duration_ms=${between(4_000, 9_000)}`,
  );
}

mkdirSync('examples/logs', { recursive: true });
let total = 0;
for (const [service, lines] of Object.entries(logs)) {
  lines.sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  total += lines.length;
  writeFileSync(`examples/logs/${service}.jsonl`, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
}

const sqlTime = (time: number) => `'${new Date(time).toISOString().replace('T', ' ').replace('Z', '')}'`;
const text = (value: string | null) => (value === null ? 'NULL' : `'${value.replace(/'/g, "''")}'`);
const rows = (values: string[]) => `${values.join(',\n')};`;
const seedSql = `-- The example world's MySQL data (generated by scripts/generate-examples.ts). DATETIME columns are UTC.
DROP TABLE IF EXISTS orders, payment_channel_config, deploy_history, config_changes;

CREATE TABLE orders (
  id INT PRIMARY KEY,
  order_id VARCHAR(32) NOT NULL,
  enterprise_id VARCHAR(32) NOT NULL,
  status VARCHAR(16) NOT NULL,
  channel VARCHAR(16) NOT NULL,
  amount DECIMAL(10,2) NOT NULL,
  error_code VARCHAR(32) NULL,
  created_at DATETIME(3) NOT NULL,
  KEY idx_orders_tenant_time (enterprise_id, created_at)
);

CREATE TABLE payment_channel_config (
  enterprise_id VARCHAR(32) NOT NULL,
  channel VARCHAR(16) NOT NULL,
  enabled TINYINT NOT NULL,
  timeout_ms INT NOT NULL,
  endpoint VARCHAR(128) NOT NULL,
  updated_at DATETIME NOT NULL,
  PRIMARY KEY (enterprise_id, channel)
);

CREATE TABLE deploy_history (
  id INT PRIMARY KEY,
  enterprise_id VARCHAR(32) NOT NULL,
  service VARCHAR(64) NOT NULL,
  version VARCHAR(32) NOT NULL,
  change_summary VARCHAR(300) NOT NULL,
  deployed_by VARCHAR(64) NOT NULL,
  deployed_at DATETIME NOT NULL,
  KEY idx_deploy_tenant_time (enterprise_id, deployed_at)
);

CREATE TABLE config_changes (
  id INT PRIMARY KEY,
  enterprise_id VARCHAR(32) NOT NULL,
  service VARCHAR(64) NOT NULL,
  config_key VARCHAR(128) NOT NULL,
  old_value VARCHAR(256) NULL,
  new_value VARCHAR(256) NULL,
  changed_at DATETIME NOT NULL,
  KEY idx_config_tenant_time (enterprise_id, service, changed_at)
);

INSERT INTO orders (id, order_id, enterprise_id, status, channel, amount, error_code, created_at) VALUES
${rows(orders.map((order) => `(${order.id}, ${text(order.order_id)}, ${text(order.enterprise_id)}, ${text(order.status)}, ${text(order.channel)}, ${order.amount}, ${text(order.error_code)}, ${sqlTime(order.created_at)})`))}

INSERT INTO payment_channel_config (enterprise_id, channel, enabled, timeout_ms, endpoint, updated_at) VALUES
('E1001', 'alipay', 1, 3000, 'https://pay-gw.e1001.internal/alipay', '2026-10-12 02:00:00'),
('E1001', 'wechat', 1, 3000, 'https://pay-gw.e1001.internal/wechat', '2026-10-12 02:00:00'),
('E2002', 'alipay', 1, 3000, 'https://pay-gw.e2002.internal/alipay', '2026-09-01 03:00:00'),
('E2002', 'unionpay', 1, 5000, 'https://pay-gw.e2002.internal/unionpay', '2026-11-02 03:00:00');

INSERT INTO deploy_history (id, enterprise_id, service, version, change_summary, deployed_by, deployed_at) VALUES
(1, 'E1001', 'inventory-service', '3.2.1', '库存同步批量大小从 200 调整为 400', 'ci-bot', '2026-11-29 02:20:00'),
(2, 'E1001', 'payment-gateway', '2.14.0', '调整数据库连接池参数：db.pool.max_size 50 -> 5，降低数据库连接数', 'zhang.wei', '2026-11-30 05:58:00'),
(3, 'E2002', 'payment-gateway', '2.13.2', '新增银联通道超时监控', 'ci-bot', '2026-11-28 07:10:00'),
(4, 'E2002', 'order-service', '5.8.0', '订单列表分页优化', 'li.na', '2026-11-30 01:30:00');

INSERT INTO config_changes (id, enterprise_id, service, config_key, old_value, new_value, changed_at) VALUES
(1, 'E1001', 'payment-gateway', 'db.pool.max_size', '50', '5', '2026-11-30 05:58:00'),
(2, 'E1001', 'inventory-service', 'sync.batch_size', '200', '400', '2026-11-29 02:20:00'),
(3, 'E2002', 'order-service', 'cache.redis.pool_size', '16', '24', '2026-11-27 09:00:00');
`;
mkdirSync('examples/mysql', { recursive: true });
writeFileSync('examples/mysql/seed.sql', seedSql);
console.log(`wrote ${total} log lines and ${orders.length} orders`);
