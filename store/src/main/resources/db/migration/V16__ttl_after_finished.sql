-- Kubernetes Jobs' ttlSecondsAfterFinished: a VM stopped, or failed for good, this long is deleted by its
-- workflow, which then completes. Null: kept until deleted by hand (every VM before this).
ALTER TABLE vms ADD COLUMN ttl_seconds_after_finished INTEGER;
