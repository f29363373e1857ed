-- The roles a service account holds in single namespaces, beside the cluster-wide ones in roles
-- (JSON: {"team-a": ["compute:read", "compute:write"]}).
ALTER TABLE service_accounts ADD COLUMN namespace_roles TEXT NOT NULL DEFAULT '{}';
