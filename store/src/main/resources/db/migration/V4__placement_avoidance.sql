-- A worker that could not start a VM's task is avoided for that VM for a while.
ALTER TABLE vms ADD COLUMN avoid_worker VARCHAR(63);
ALTER TABLE vms ADD COLUMN avoid_until TIMESTAMP WITH TIME ZONE;
