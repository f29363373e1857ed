-- How long a set's rollout may go without a new replica becoming available before it is stalled, and
-- whether a stalled rollout goes back by itself to the version that last rolled out whole.
ALTER TABLE vm_sets ADD COLUMN progress_deadline_seconds INTEGER DEFAULT 600 NOT NULL;
ALTER TABLE vm_sets ADD COLUMN auto_revert BOOLEAN DEFAULT FALSE NOT NULL;
ALTER TABLE vm_sets ADD COLUMN stable_version INTEGER DEFAULT 1 NOT NULL;
-- The rollout under way: how many of its new replicas were available at most, and since when; NULL
-- when none is under way.
ALTER TABLE vm_sets ADD COLUMN rollout_available INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE vm_sets ADD COLUMN rollout_progress_at TIMESTAMP WITH TIME ZONE;
