-- How a VM moves between workers while it runs: 'live' carries its memory and disk over with QEMU's
-- live migration (a qemu VM with a persistent disk); NULL restarts it elsewhere, as before.
ALTER TABLE vms ADD COLUMN migration VARCHAR(16);
