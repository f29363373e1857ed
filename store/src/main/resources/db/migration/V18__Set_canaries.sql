-- A rollout that first makes this many new replicas and waits there until it is promoted (by a user,
-- or by itself once they are available, with auto_promote); and a rollout paused by a user.
ALTER TABLE vm_sets ADD COLUMN canary INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE vm_sets ADD COLUMN auto_promote BOOLEAN DEFAULT FALSE NOT NULL;
ALTER TABLE vm_sets ADD COLUMN rollout_promoted BOOLEAN DEFAULT FALSE NOT NULL;
ALTER TABLE vm_sets ADD COLUMN rollout_paused BOOLEAN DEFAULT FALSE NOT NULL;
