-- Rules on a VM's worker's labels beyond the labels it asks for (JSON: [{"label": ..., "operator":
-- ..., "values": [...]}]); NULL for none.
ALTER TABLE vms ADD COLUMN constraints TEXT;
