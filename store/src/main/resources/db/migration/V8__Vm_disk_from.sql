-- The worker a persistent disk is copied from for the VM's next task, while the VM moves with its
-- disk (a drain): the disk there is kept until that task runs elsewhere.
ALTER TABLE vms ADD COLUMN disk_from VARCHAR(63);
