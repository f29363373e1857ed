-- When a set's pass last asked the VM's workflow to delete it: the passes that follow, on any host,
-- leave it to its workflow rather than ask again. NULL: never asked, or its workflow was started
-- anew since (the request went with the run Temporal lost). Written apart from the row's version:
-- the row's own writers never carry it.
ALTER TABLE vms ADD COLUMN deletion_asked_at TIMESTAMP WITH TIME ZONE;
