-- The ports a VM serves, by name (JSON: [{"name": "ssh", "port": 22}]); NULL for none.
ALTER TABLE vms ADD COLUMN ports TEXT;
-- The worker's port its agent gave each of a task's named ports (JSON: {"ssh": 20001}); NULL for none.
ALTER TABLE agent_tasks ADD COLUMN ports TEXT;
