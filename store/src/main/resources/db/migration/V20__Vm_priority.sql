-- How far ahead of other VMs one is placed (0 to 100); every VM so far has the default.
ALTER TABLE vms ADD COLUMN priority INTEGER DEFAULT 50 NOT NULL;
