-- One owner per fact. The scheduler's observation (its terms, and agents' reports between terms) is
-- the only writer of a task's state; a VM's workflow is the only writer of the VM's lifecycle, which
-- it decides from the task events the observation sends it through the outbox.

-- Each task the scheduler placed, and what it last observed of it. A task is one generation of one
-- submission of a VM: a VM deleted and submitted again under its name has another vm_seq.
CREATE TABLE vm_tasks (
    id          VARCHAR(200)  NOT NULL PRIMARY KEY, -- vm_seq/task_id
    vm          VARCHAR(63)   NOT NULL,
    vm_seq      BIGINT        NOT NULL,
    generation  INTEGER       NOT NULL,
    worker      VARCHAR(63)   NOT NULL,
    state       VARCHAR(16)   NOT NULL,
    exit_code   INTEGER,
    message     VARCHAR(2048),
    placed_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    started_at  TIMESTAMP WITH TIME ZONE,
    ended_at    TIMESTAMP WITH TIME ZONE
);
CREATE INDEX vm_tasks_vm ON vm_tasks (vm);

-- Tasks placed before this migration: the VMs' rows said where they were.
INSERT INTO vm_tasks (id, vm, vm_seq, generation, worker, state, placed_at, started_at)
SELECT CAST(seq AS VARCHAR(20)) || '/' || name || '.' || CAST(restart_count AS VARCHAR(11)), name, seq, restart_count, worker,
       CASE WHEN status = 'scheduled' THEN 'scheduled' ELSE 'running' END, COALESCE(scheduled_at, created_at), started_at
FROM vms WHERE worker IS NOT NULL AND status IN ('scheduled', 'running', 'stopping');

-- Why a VM still waits: the scheduler's, shown while the VM is pending.
ALTER TABLE vms ADD COLUMN pending_reason VARCHAR(2048);
-- The last task event the VM's workflow applied: a workflow resumed from the store applies none twice.
ALTER TABLE vms ADD COLUMN task_event_id BIGINT DEFAULT 0 NOT NULL;

-- A notification is now a typed task event: what happened, to which submission's task, and when.
ALTER TABLE term_actions ADD COLUMN vm_seq BIGINT;
ALTER TABLE term_actions ADD COLUMN event VARCHAR(16);
ALTER TABLE term_actions ADD COLUMN exit_code INTEGER;
ALTER TABLE term_actions ADD COLUMN started_at TIMESTAMP WITH TIME ZONE;
