-- Scenario logs-redis-readonly: synthetic data. DATETIME columns are UTC.
DROP TABLE IF EXISTS deploy_history, config_changes;

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
  changed_by VARCHAR(64) NOT NULL,
  changed_at DATETIME NOT NULL,
  KEY idx_config_tenant_time (enterprise_id, service, changed_at)
);

INSERT INTO deploy_history (id, enterprise_id, service, version, change_summary, deployed_by, deployed_at) VALUES
(1, 'E3003', 'cart-service', '4.2.0', '购物车合并逻辑优化', 'ci-bot', '2026-11-24 03:00:00'),
(2, 'E1001', 'cart-service', '4.2.0', '购物车合并逻辑优化', 'ci-bot', '2026-11-23 03:00:00'),
(3, 'E2002', 'cart-service', '4.1.3', '修复优惠券预览空指针', 'ci-bot', '2026-11-18 03:00:00');
INSERT INTO config_changes (id, enterprise_id, service, config_key, old_value, new_value, changed_by, changed_at) VALUES
(1, 'E3003', 'cart-service', 'cart.max_items', '100', '120', 'ops_wangfang', '2026-11-26 08:00:00'),
(2, 'E1001', 'cart-service', 'redis.pool.size', '32', '48', 'ops_liqiang', '2026-11-29 02:00:00');
