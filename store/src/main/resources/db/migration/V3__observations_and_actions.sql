-- Actual state as the scheduler last observed it, and the actions its terms decided.

-- Probe results are observations, not desired state: written without a version bump, like heartbeats.
ALTER TABLE workers ADD COLUMN last_probe_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE workers ADD COLUMN last_probe_ok BOOLEAN DEFAULT FALSE NOT NULL;
ALTER TABLE workers ADD COLUMN probe_failures INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE workers ADD COLUMN last_probe_error VARCHAR(1024);
-- Decided by the scheduler with its health, under the version check.
ALTER TABLE workers ADD COLUMN flaky_until TIMESTAMP WITH TIME ZONE;

-- Each agent's task list from the last probe that answered.
CREATE TABLE agent_tasks (
    id          VARCHAR(200)  NOT NULL PRIMARY KEY, -- worker/task_id
    worker      VARCHAR(63)   NOT NULL,
    task_id     VARCHAR(128)  NOT NULL,
    state       VARCHAR(16)   NOT NULL,
    exit_code   INTEGER,
    message     VARCHAR(2048),
    observed_at TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX agent_tasks_worker ON agent_tasks (worker);

-- The outbox: what a committed term decided to do on agents and to tell VM workflows. Written in the
-- commit's transaction, drained by the apply activity, so a host dying in between loses nothing.
CREATE SEQUENCE term_action_seq;
CREATE TABLE term_actions (
    id         BIGINT        NOT NULL PRIMARY KEY,
    kind       VARCHAR(16)   NOT NULL,
    worker     VARCHAR(63),
    task_id    VARCHAR(128),
    vm         VARCHAR(63),
    detail     VARCHAR(2048),
    created_at TIMESTAMP WITH TIME ZONE NOT NULL,
    attempts   INTEGER       NOT NULL
);
