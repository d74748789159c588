-- Scenario deploy-inventory-npe: synthetic data. DATETIME columns are UTC.
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
(1, 'E1001', 'inventory-service', '3.7.2', '修复库存同步重复消息', 'ci-bot', '2026-11-25 06:20:00'),
(2, 'E1001', 'order-service', '5.2.1', '订单列表分页优化', 'ci-bot', '2026-11-28 03:10:00'),
(3, 'E1001', 'inventory-service', '3.8.0', '重构库存预占：按仓库拆分预占，预占前查询 SKU 的仓库映射', 'ci-bot', '2026-11-30 07:40:05'),
(4, 'E2002', 'inventory-service', '3.7.2', '修复库存同步重复消息', 'ci-bot', '2026-11-26 02:00:00'),
(5, 'E2002', 'order-service', '5.2.1', '订单列表分页优化', 'ci-bot', '2026-11-29 05:00:00');
INSERT INTO config_changes (id, enterprise_id, service, config_key, old_value, new_value, changed_by, changed_at) VALUES
(1, 'E1001', 'order-service', 'coupon.timeout.ms', '800', '1200', 'ops_liqiang', '2026-11-30 02:00:00');
