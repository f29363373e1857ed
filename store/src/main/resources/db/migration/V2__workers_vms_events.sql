-- Desired state: the worker registry, the VMs users submitted, and each VM's events.
-- Maps and lists are JSON text, which both PostgreSQL and H2 store as they are.
-- version columns guard rows the scheduler writes: a stale write is refused, never applied.

CREATE TABLE workers (
    name              VARCHAR(63)   NOT NULL PRIMARY KEY,
    endpoint          VARCHAR(2048) NOT NULL,
    resources         TEXT          NOT NULL,
    labels            TEXT          NOT NULL,
    runtimes          TEXT          NOT NULL,
    machine_id        VARCHAR(255),
    scheduling_paused BOOLEAN       NOT NULL,
    health            VARCHAR(16)   NOT NULL,
    health_message    VARCHAR(1024),
    last_seen         TIMESTAMP WITH TIME ZONE,
    created_at        TIMESTAMP WITH TIME ZONE NOT NULL,
    version           BIGINT        NOT NULL
);

CREATE SEQUENCE vm_seq;

CREATE TABLE vms (
    name            VARCHAR(63)   NOT NULL PRIMARY KEY,
    seq             BIGINT        NOT NULL UNIQUE,
    runtime         VARCHAR(63)   NOT NULL,
    image           VARCHAR(2048),
    command         TEXT          NOT NULL,
    env             TEXT          NOT NULL,
    resources       TEXT          NOT NULL,
    labels          TEXT          NOT NULL,
    restart_policy  VARCHAR(16)   NOT NULL,
    status          VARCHAR(16)   NOT NULL,
    status_message  VARCHAR(2048),
    worker          VARCHAR(63),
    restart_count   INTEGER       NOT NULL,
    exit_code       INTEGER,
    created_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    scheduled_at    TIMESTAMP WITH TIME ZONE,
    started_at      TIMESTAMP WITH TIME ZONE,
    finished_at     TIMESTAMP WITH TIME ZONE,
    version         BIGINT        NOT NULL
);
CREATE INDEX vms_status_seq ON vms (status, seq);
CREATE INDEX vms_worker_seq ON vms (worker, seq);

CREATE SEQUENCE vm_event_seq;

CREATE TABLE vm_events (
    id       BIGINT        NOT NULL PRIMARY KEY,
    vm_name  VARCHAR(63)   NOT NULL,
    time     TIMESTAMP WITH TIME ZONE NOT NULL,
    type     VARCHAR(32)   NOT NULL,
    message  VARCHAR(4096) NOT NULL
);
CREATE INDEX vm_events_vm_id ON vm_events (vm_name, id);
