-- The submission of the VM a listed task is of, as its agent says (the spec it was started with named
-- it): a task id is shared by every VM submitted under a name, and this tells a deleted VM's task from
-- the task of the VM submitted again. NULL: the agent did not say.
ALTER TABLE agent_tasks ADD COLUMN submission BIGINT;
