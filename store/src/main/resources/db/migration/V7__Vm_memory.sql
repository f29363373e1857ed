-- Whether a suspended qemu VM's memory is saved on its worker (disk_on, set then for a VM without a
-- persistent disk too), for its next task to resume from.
ALTER TABLE vms ADD COLUMN memory_saved BOOLEAN DEFAULT FALSE NOT NULL;
