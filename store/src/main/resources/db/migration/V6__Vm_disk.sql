-- A qemu VM's root disk: whether it outlives its tasks (kept on the worker until the VM is deleted),
-- the size its guest sees (NULL: the image's), and the worker that holds it once placed (NULL: none
-- yet, or an ephemeral disk).
ALTER TABLE vms ADD COLUMN disk_persistent BOOLEAN DEFAULT FALSE NOT NULL;
ALTER TABLE vms ADD COLUMN disk_size_gi INTEGER;
ALTER TABLE vms ADD COLUMN disk_on VARCHAR(63);
