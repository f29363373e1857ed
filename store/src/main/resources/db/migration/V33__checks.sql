-- A VM's readiness and liveness checks (JSON: {"readiness": {"tcp": "ssh", "periodSeconds": 10, ...},
-- "liveness": ...}); NULL for none.
ALTER TABLE vms ADD COLUMN checks TEXT;
-- What its readiness check last said, as its agent reported it: of the task of generation
-- ready_generation, ready since ready_since, or not, saying readiness_message.
ALTER TABLE vms ADD COLUMN ready_generation INTEGER;
ALTER TABLE vms ADD COLUMN ready_since TIMESTAMP WITH TIME ZONE;
ALTER TABLE vms ADD COLUMN readiness_message TEXT;
