-- The workers' taints a VM may go past (JSON: [{"key": ..., "operator": ..., "value": ...,
-- "effect": ...}]); NULL for none.
ALTER TABLE vms ADD COLUMN tolerations TEXT;
