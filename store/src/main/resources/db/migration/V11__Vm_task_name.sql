-- The name a VM's tasks carry on the agents when it is not the VM's own: a VM claimed from a warm
-- pool keeps running the pool replica's task under the replica's name. NULL: the VM's name.
ALTER TABLE vms ADD COLUMN task_name VARCHAR(63);
CREATE INDEX vms_task_name ON vms (task_name);
