-- Scenario timezone-callback-cert: synthetic data. DATETIME columns are UTC.
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
(1, 'E1001', 'callback-service', '2.3.1', '回调处理增加幂等键', 'ci-bot', '2026-11-25 03:00:00');
