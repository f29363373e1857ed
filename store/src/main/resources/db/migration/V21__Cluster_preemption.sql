-- Whether a waiting VM may evict running VMs of lower priority to make room: off until asked for.
ALTER TABLE cluster_settings ADD COLUMN preemption BOOLEAN DEFAULT FALSE NOT NULL;
