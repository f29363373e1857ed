-- Data volumes: a blank disk of its own, on one worker, until deleted. A volume mounted by a VM is
-- where that VM's disk is (vms.disk_on) and moves with it; `worker` is where it was made or last
-- left (NULL: nowhere yet, made by the first VM that mounts it). `vm` is the one VM mounting it.
CREATE SEQUENCE volume_seq;
CREATE TABLE volumes (
    name       VARCHAR(63)   NOT NULL PRIMARY KEY,
    seq        BIGINT        NOT NULL UNIQUE,
    size_gi    INTEGER       NOT NULL,
    worker     VARCHAR(63),
    vm         VARCHAR(63),
    created_at TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX volumes_by_vm ON volumes (vm);
-- The volumes a VM mounts, in order (JSON: [{"name": ..., "mountPath": ...}]); NULL for none.
ALTER TABLE vms ADD COLUMN volumes TEXT;
