-- A replica being moved: its new copy (the generation in restart_count) is placed on another worker
-- while its previous task keeps running on moving_from, until the new one has started. The term that
-- decides the move writes it; the start of the new copy, or the VM's next restart, clears it.
ALTER TABLE vms ADD COLUMN moving_from VARCHAR(63);
