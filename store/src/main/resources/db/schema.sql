-- Rota's schema as of release 0.1.0, the baseline every later migration builds on. Portable SQL: it
-- runs on PostgreSQL and on H2 in PostgreSQL mode (dev mode's). Maps and lists are JSON text, which
-- both store as they are. A version column guards a row the scheduler or the API writes: a stale
-- write is refused, never applied. One writer per fact: the API writes what users ask for, a VM's
-- workflow writes its lifecycle, the scheduler's observation writes what runs (docs/architecture.md).

-- The scheduler's profile, and the read model of its terms (kept by the cluster workflow's activities,
-- so that the API answers without asking Temporal).
CREATE TABLE cluster_settings (
    id                VARCHAR(32)  NOT NULL PRIMARY KEY,
    scheduler_profile VARCHAR(32)  NOT NULL,
    version           BIGINT       NOT NULL
);
INSERT INTO cluster_settings (id, scheduler_profile, version) VALUES ('default', 'optimize-utilization', 0);

CREATE TABLE cluster_status (
    id               VARCHAR(128) NOT NULL PRIMARY KEY,
    term             BIGINT       NOT NULL,
    last_term_at     TIMESTAMP WITH TIME ZONE,
    last_term_millis BIGINT       NOT NULL,
    wake_pending     BOOLEAN      DEFAULT FALSE NOT NULL,
    listening_since  TIMESTAMP WITH TIME ZONE
);
INSERT INTO cluster_status (id, term, last_term_at, last_term_millis, wake_pending)
VALUES ('rota-cluster', 0, NULL, 0, FALSE);

-- The worker registry. Probe results and heartbeats are observations, written without a version bump;
-- health is the scheduler's, under the version check.
CREATE TABLE workers (
    name               VARCHAR(63)   NOT NULL PRIMARY KEY,
    endpoint           VARCHAR(2048) NOT NULL,
    resources          TEXT          NOT NULL,
    labels             TEXT          NOT NULL,
    runtimes           TEXT          NOT NULL,
    machine_id         VARCHAR(255),
    scheduling_paused  BOOLEAN       NOT NULL,
    health             VARCHAR(16)   NOT NULL,
    health_message     VARCHAR(1024),
    last_seen          TIMESTAMP WITH TIME ZONE,
    created_at         TIMESTAMP WITH TIME ZONE NOT NULL,
    version            BIGINT        NOT NULL,
    last_probe_at      TIMESTAMP WITH TIME ZONE,
    last_probe_ok      BOOLEAN       DEFAULT FALSE NOT NULL,
    probe_failures     INTEGER       DEFAULT 0 NOT NULL,
    last_probe_error   VARCHAR(1024),
    flaky_until        TIMESTAMP WITH TIME ZONE,
    agent_secret       VARCHAR(128),
    images             TEXT,
    drain_deadline     TIMESTAMP WITH TIME ZONE,
    drain_started_at   TIMESTAMP WITH TIME ZONE,
    drain_progress     VARCHAR(1024),
    certificate_sha256 VARCHAR(64),
    notices            TEXT,
    -- The fetches its agent has under way or that failed, as its heartbeat said
    -- (JSON: {"<image>": {"state": "pulling", "message": "pulling 40% of 2048 MiB"}}); NULL for none.
    pulls              TEXT
);

-- The VMs users submitted: the spec (the API's), the lifecycle (its workflow's), the placement notes
-- (the scheduler's), its set (a replica's ordinal), and what its readiness check last said (its
-- agent's reports). seq tells a VM from one submitted again under its name.
CREATE SEQUENCE vm_seq;
CREATE TABLE vms (
    name                       VARCHAR(63)   NOT NULL PRIMARY KEY,
    seq                        BIGINT        NOT NULL UNIQUE,
    runtime                    VARCHAR(63)   NOT NULL,
    image                      VARCHAR(2048),
    command                    TEXT          NOT NULL,
    env                        TEXT          NOT NULL,
    resources                  TEXT          NOT NULL,
    labels                     TEXT          NOT NULL,
    restart_policy             VARCHAR(16)   NOT NULL,
    status                     VARCHAR(16)   NOT NULL,
    status_message             VARCHAR(2048),
    worker                     VARCHAR(63),
    restart_count              INTEGER       NOT NULL,
    exit_code                  INTEGER,
    created_at                 TIMESTAMP WITH TIME ZONE NOT NULL,
    scheduled_at               TIMESTAMP WITH TIME ZONE,
    started_at                 TIMESTAMP WITH TIME ZONE,
    finished_at                TIMESTAMP WITH TIME ZONE,
    version                    BIGINT        NOT NULL,
    avoid_worker               VARCHAR(63),
    avoid_until                TIMESTAMP WITH TIME ZONE,
    -- Why it still waits, as the scheduler last explained it.
    pending_reason             VARCHAR(2048),
    -- The last task event its workflow applied: a workflow resumed from the store applies none twice.
    task_event_id              BIGINT        DEFAULT 0 NOT NULL,
    vm_set                     VARCHAR(63),
    set_ordinal                INTEGER,
    -- The worker its last task failed on: its restart prefers another.
    failed_on                  VARCHAR(63),
    moving_from                VARCHAR(63),
    max_restarts               INTEGER,
    restart_window_seconds     INTEGER,
    evicted_generation         INTEGER,
    ttl_seconds_after_finished INTEGER,
    guest                      TEXT,
    old_copy_on                VARCHAR(63),
    disconnect                 TEXT,
    restart_at                 TIMESTAMP WITH TIME ZONE,
    fits_nowhere               BOOLEAN       DEFAULT FALSE NOT NULL,
    ports                      TEXT,
    network                    TEXT,
    checks                     TEXT,
    ready_generation           INTEGER,
    ready_since                TIMESTAMP WITH TIME ZONE,
    readiness_message          TEXT,
    -- Which of its values are secrets, by name (JSON: {"env": {"TOKEN": "runner-token"},
    -- "userData": "cloud-config"}); NULL for none.
    secret_refs                TEXT
);
CREATE INDEX vms_status_seq ON vms (status, seq);
CREATE INDEX vms_worker_seq ON vms (worker, seq);
CREATE INDEX vms_by_set ON vms (vm_set, set_ordinal);

CREATE SEQUENCE vm_event_seq;
CREATE TABLE vm_events (
    id       BIGINT        NOT NULL PRIMARY KEY,
    vm_name  VARCHAR(63)   NOT NULL,
    time     TIMESTAMP WITH TIME ZONE NOT NULL,
    type     VARCHAR(32)   NOT NULL,
    message  VARCHAR(4096) NOT NULL
);
CREATE INDEX vm_events_vm_id ON vm_events (vm_name, id);

-- Each agent's task list from the last probe that answered. id is worker/task_id.
CREATE TABLE agent_tasks (
    id          VARCHAR(200)  NOT NULL PRIMARY KEY,
    worker      VARCHAR(63)   NOT NULL,
    task_id     VARCHAR(128)  NOT NULL,
    state       VARCHAR(16)   NOT NULL,
    exit_code   INTEGER,
    message     VARCHAR(2048),
    observed_at TIMESTAMP WITH TIME ZONE NOT NULL,
    ports       TEXT,
    submission  BIGINT
);
CREATE INDEX agent_tasks_worker ON agent_tasks (worker);

-- Each task the scheduler placed, and what it last observed of it: one generation of one submission
-- of a VM. id is vm_seq/task_id.
CREATE TABLE vm_tasks (
    id          VARCHAR(200)  NOT NULL PRIMARY KEY,
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

-- The outbox: what a committed transaction decided to do on agents (start, remove) and to tell VMs'
-- workflows (notify: a task event), written in that transaction and carried out after it, so that a
-- host dying in between loses nothing.
CREATE SEQUENCE outbox_seq;
CREATE TABLE outbox (
    id         BIGINT        NOT NULL PRIMARY KEY,
    kind       VARCHAR(16)   NOT NULL,
    worker     VARCHAR(63),
    task_id    VARCHAR(128),
    vm         VARCHAR(63),
    detail     VARCHAR(2048),
    created_at TIMESTAMP WITH TIME ZONE NOT NULL,
    attempts   INTEGER       NOT NULL,
    vm_seq     BIGINT,
    event      VARCHAR(16),
    exit_code  INTEGER,
    started_at TIMESTAMP WITH TIME ZONE
);
CREATE INDEX outbox_by_vm ON outbox (vm, id);

CREATE TABLE service_accounts (
    name       VARCHAR(63)  NOT NULL PRIMARY KEY,
    token_hash VARCHAR(64)  NOT NULL UNIQUE,
    roles      TEXT         NOT NULL,
    worker     VARCHAR(63),
    created_at TIMESTAMP WITH TIME ZONE NOT NULL
);

-- VM sets: N replicas of one template, each a VM named <set>-<ordinal>. The row is the API's; the
-- set's workflow makes the VMs match it.
CREATE TABLE vm_sets (
    name             VARCHAR(63)   NOT NULL PRIMARY KEY,
    seq              BIGINT        NOT NULL UNIQUE,
    replicas         INTEGER       NOT NULL,
    template         TEXT          NOT NULL,
    spread           VARCHAR(300)  NOT NULL,
    max_unavailable  INTEGER       NOT NULL,
    deleting         BOOLEAN       NOT NULL,
    message          VARCHAR(2048),
    created_at       TIMESTAMP WITH TIME ZONE NOT NULL,
    version          BIGINT        NOT NULL
);

CREATE TABLE worker_task_failures (
    worker     VARCHAR(63) NOT NULL,
    failed_at  TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX worker_task_failures_by_time ON worker_task_failures (failed_at);

-- The change feed that watches read: a row per write to a VM or a worker, written by a trigger in the
-- writer's transaction (the triggers are the baseline migration's, one for each database).
CREATE SEQUENCE change_seq;
CREATE TABLE changes (
    id         BIGINT       NOT NULL PRIMARY KEY,
    kind       VARCHAR(16)  NOT NULL,
    name       VARCHAR(63)  NOT NULL,
    deleted    BOOLEAN      NOT NULL,
    changed_at TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX changes_by_time ON changes (changed_at);

-- A row written by a transaction whose commit can go unanswered: found afterwards, it says that
-- transaction committed; missing, that it did not. A random key and no other index.
CREATE TABLE commit_marks (
    id        BIGINT PRIMARY KEY,
    marked_at TIMESTAMP WITH TIME ZONE NOT NULL
);

-- A submitted VM whose workflow is yet to be started, written with the submission so that its 201
-- needs only the database; a host claims it, and starts it or leaves it to another.
CREATE TABLE workflow_starts (
    vm            VARCHAR(63) PRIMARY KEY,
    vm_seq        BIGINT NOT NULL,
    submitted_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    claimed_by    VARCHAR(64),
    claimed_until TIMESTAMP WITH TIME ZONE
);
CREATE INDEX workflow_starts_by_seq ON workflow_starts (vm_seq);

-- Images to fetch ahead onto the workers whose labels match a selector.
CREATE TABLE image_prefetches (
    id         VARCHAR(64)   NOT NULL PRIMARY KEY,
    image      VARCHAR(2048) NOT NULL,
    selector   TEXT          NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL
);

-- Secrets a VM refers to by name: each value sealed (AES-256-GCM, with the operator's key and the
-- name as associated data), base64 of nonce and ciphertext; never returned by the API.
CREATE TABLE secrets (
    name       VARCHAR(63) NOT NULL PRIMARY KEY,
    sealed     TEXT        NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at TIMESTAMP WITH TIME ZONE NOT NULL
);

-- Short-lived tokens that open one VM's sockets and nothing else: stored only as SHA-256, bound to
-- the VM's submission.
CREATE TABLE vm_access_tokens (
    token_hash VARCHAR(64) NOT NULL PRIMARY KEY,
    vm         VARCHAR(63) NOT NULL,
    vm_seq     BIGINT      NOT NULL,
    created_by VARCHAR(63) NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL,
    expires_at TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX vm_access_tokens_expiry ON vm_access_tokens (expires_at);
