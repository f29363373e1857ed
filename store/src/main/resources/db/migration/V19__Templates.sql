-- VM templates: a VM's spec as a user gives it (JSON, without its name) and its typed parameters, each
-- filling one field of the spec; POST /v1/vms and sets make VMs of them with fromTemplate.
CREATE TABLE templates (
    name        VARCHAR(63)   NOT NULL PRIMARY KEY,
    spec        TEXT          NOT NULL,
    parameters  TEXT          NOT NULL,
    description VARCHAR(1024),
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at  TIMESTAMP WITH TIME ZONE NOT NULL
);
-- Instance sizes an operator names once ({"small": {"cpu": 1, "memory": 1024}}, JSON): a VM's size
-- fills the resources it does not give itself.
ALTER TABLE cluster_settings ADD COLUMN instance_sizes TEXT;
