-- A move whose new copy runs while its old copy is being stopped: the worker the old copy is on. The
-- start of the new copy moves moving_from here; the term clears it once the old copy is gone, and only
-- then does the VM read as moved.
ALTER TABLE vms ADD COLUMN old_copy_on VARCHAR(63);
