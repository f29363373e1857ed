-- Portable SQL: runs on PostgreSQL and on H2 in PostgreSQL mode (the embedded default).

CREATE TABLE cluster_settings (
    id                VARCHAR(32)  NOT NULL PRIMARY KEY,
    scheduler_profile VARCHAR(32)  NOT NULL,
    version           BIGINT       NOT NULL
);
INSERT INTO cluster_settings (id, scheduler_profile, version) VALUES ('default', 'optimize-utilization', 0);

-- The read model of the scheduler, kept current by the cluster workflow's activities so that the API
-- can answer without asking Temporal.
CREATE TABLE cluster_status (
    id               VARCHAR(128) NOT NULL PRIMARY KEY,
    term             BIGINT       NOT NULL,
    last_term_at     TIMESTAMP WITH TIME ZONE,
    last_term_millis BIGINT       NOT NULL
);
