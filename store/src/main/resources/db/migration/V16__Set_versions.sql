-- Every template a set (or pool) has had, numbered from 1, with who gave it and when. The set's row
-- names the one its replicas are now made of; a replica names the one it was made of, so that a new
-- template is rolled out over the replicas of the earlier ones. They go with their set.
CREATE TABLE vm_set_versions (
    seq         BIGINT        NOT NULL PRIMARY KEY,
    set_name    VARCHAR(63)   NOT NULL REFERENCES vm_sets (name) ON DELETE CASCADE,
    version     INTEGER       NOT NULL,
    template    TEXT          NOT NULL,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    created_by  VARCHAR(255),
    UNIQUE (set_name, version)
);
INSERT INTO vm_set_versions (seq, set_name, version, template, created_at)
    SELECT nextval('vm_seq'), name, 1, template, created_at FROM vm_sets;
ALTER TABLE vm_sets ADD COLUMN template_version INTEGER DEFAULT 1 NOT NULL;
-- How a new template is rolled out: replicas beyond those wanted it may make meanwhile, and how long
-- a new replica runs, ready, before it counts as available. maxUnavailable is the set's own.
ALTER TABLE vm_sets ADD COLUMN max_surge INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE vm_sets ADD COLUMN min_healthy_seconds INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE vms ADD COLUMN set_version INTEGER;
UPDATE vms SET set_version = 1 WHERE vm_set IS NOT NULL;
