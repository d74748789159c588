-- Scenario red-herring-kafka: synthetic data. DATETIME columns are UTC.
DROP TABLE IF EXISTS config_changes;

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

INSERT INTO config_changes (id, enterprise_id, service, config_key, old_value, new_value, changed_by, changed_at) VALUES
(1, 'E1001', 'payment-gateway', 'channel.alipay.timeout_ms', '3000', '800', 'ops_liqiang', '2026-11-30 06:03:10'),
(2, 'E1001', 'order-service', 'analytics.kafka.acks', '1', 'all', 'ops_zhaolei', '2026-11-30 04:28:00'),
(3, 'E2002', 'payment-gateway', 'channel.alipay.timeout_ms', '3000', '3500', 'ops_wangfang', '2026-11-20 02:00:00');
