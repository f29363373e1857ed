-- A VM's lease: how long it may run (max_run_seconds, NULL for no limit), what becomes of it then
-- (on_expiry: stop or delete), and when the lease under way runs out (NULL until the VM first runs).
ALTER TABLE vms ADD COLUMN max_run_seconds INTEGER;
ALTER TABLE vms ADD COLUMN on_expiry VARCHAR(16);
ALTER TABLE vms ADD COLUMN lease_expires_at TIMESTAMP WITH TIME ZONE;
-- The lease a VM (or a set's template) submitted without maxRunDuration gets; NULL for none.
ALTER TABLE cluster_settings ADD COLUMN default_max_run_seconds INTEGER;
