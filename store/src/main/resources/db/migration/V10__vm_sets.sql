-- VM sets: N replicas of one template, each a VM of its own named <set>-<ordinal>. The set's row is
-- the API's (what the user asked for); its workflow makes the VMs match it.
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

-- A replica knows its set and its ordinal; a VM submitted on its own has neither.
ALTER TABLE vms ADD COLUMN vm_set VARCHAR(63);
ALTER TABLE vms ADD COLUMN set_ordinal INTEGER;
CREATE INDEX vms_by_set ON vms (vm_set, set_ordinal);

-- The worker a VM's last task failed on: its restart prefers another (Nomad's reschedule), and takes
-- that one only when no other has room. The VM's workflow writes it when it restarts the VM.
ALTER TABLE vms ADD COLUMN failed_on VARCHAR(63);
