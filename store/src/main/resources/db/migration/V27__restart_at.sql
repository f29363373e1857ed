-- When a VM that ended waits to be restarted: the time its workflow's restart timer fires. NULL
-- when no restart is scheduled.
ALTER TABLE vms ADD COLUMN restart_at TIMESTAMP WITH TIME ZONE;
