-- How a warm pool keeps its replicas: NULL, running; 'suspended', booted once and then saved to their
-- worker's disk, resumed when claimed. NULL for a set.
ALTER TABLE vm_sets ADD COLUMN pool_standby VARCHAR(16);
-- A replica its pool keeps suspended: its workflow takes its pool's suspend, which a set's replica's
-- refuses. FALSE for every other VM, a VM claimed from such a pool included.
ALTER TABLE vms ADD COLUMN standby BOOLEAN DEFAULT FALSE NOT NULL;
