-- When a VM that ended waits to be restarted: the time its workflow's restart timer fires. NULL
-- when no restart is scheduled.
ALTER TABLE vms ADD COLUMN restart_at TIMESTAMP WITH TIME ZONE;

-- Whether a pending VM fits no worker of the cluster, ready or not (its runtime, labels or size):
-- it waits until the cluster changes, and a client waiting for it to run is told at once.
ALTER TABLE vms ADD COLUMN fits_nowhere BOOLEAN DEFAULT FALSE NOT NULL;
