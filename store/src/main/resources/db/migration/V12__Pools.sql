-- Warm pools: a set whose replicas are handed out, ready, as users' VMs. A pool keeps `replicas`
-- (its minReady) replicas not yet claimed, and no more than pool_max VMs out at once, its replicas
-- and the VMs claimed from it together; pool_max is NULL for a set. A pool's replicas take ordinals
-- never used before (next_ordinal), so that a claimed VM's tasks keep their replica's name to
-- themselves.
ALTER TABLE vm_sets ADD COLUMN pool_max INTEGER;
ALTER TABLE vm_sets ADD COLUMN next_ordinal INTEGER DEFAULT 0 NOT NULL;
-- The pool a VM was claimed from; NULL for any other.
ALTER TABLE vms ADD COLUMN claimed_from VARCHAR(63);
CREATE INDEX vms_claimed_from ON vms (claimed_from);
