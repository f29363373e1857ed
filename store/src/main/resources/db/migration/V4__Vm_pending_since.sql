-- When a VM last became pending again (a restart, a start after a stop), so that the oldest pending
-- VM's wait can be told; null: pending since its submission (created_at).
ALTER TABLE vms ADD COLUMN pending_since TIMESTAMP WITH TIME ZONE;
