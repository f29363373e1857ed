-- What becomes of a VM whose worker is cut off (JSON: {"replace": false, "stopAfterSeconds": 600});
-- NULL: the default, a new copy elsewhere once the worker is offline, the old one stopped at the fence.
ALTER TABLE vms ADD COLUMN disconnect TEXT;
