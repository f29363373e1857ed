-- The workers a VM prefers, or avoids, by their labels (JSON: [{"label": ..., "operator": ...,
-- "values": [...], "weight": ...}]); NULL for none.
ALTER TABLE vms ADD COLUMN affinities TEXT;
