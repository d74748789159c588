-- Scenario large-logs-db-proxy: synthetic data. DATETIME columns are UTC.
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
(1, 'E1001', 'inventory-db-proxy', '1.4.0', '代理升级：连接复用策略调整', 'dba_chenjing', '2026-11-30 06:04:30'),
(2, 'E1001', 'inventory-service', '3.7.2', '修复库存同步重复消息', 'ci-bot', '2026-11-25 06:20:00'),
(3, 'E2002', 'coupon-service', '2.2.0', '优惠券规则缓存', 'ci-bot', '2026-11-30 05:08:00');
INSERT INTO config_changes (id, enterprise_id, service, config_key, old_value, new_value, changed_by, changed_at) VALUES
(1, 'E1001', 'inventory-service', 'pool.reserve.max', '48', '64', 'ops_liqiang', '2026-11-20 02:00:00');
