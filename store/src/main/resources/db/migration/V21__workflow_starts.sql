-- A submitted VM whose workflow has yet to be started: written in the submission's transaction, so that
-- the 201 a user was given needs only the database; taken out once the workflow runs. A host starts the
-- workflows of its own submissions at once, and any host those left behind by one that died.
CREATE TABLE workflow_starts (
    vm           VARCHAR(63) PRIMARY KEY,
    vm_seq       BIGINT NOT NULL,
    submitted_at TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX workflow_starts_by_seq ON workflow_starts (vm_seq);
