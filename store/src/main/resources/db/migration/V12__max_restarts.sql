-- Nomad's reschedule attempts and interval: restarts after failures allowed within a window, after
-- which the VM stays failed with the reason. Null: no limit (every VM before this).
ALTER TABLE vms ADD COLUMN max_restarts INTEGER;
ALTER TABLE vms ADD COLUMN restart_window_seconds INTEGER;
