-- Where a qemu VM's guest may connect to (JSON: {"egress": "allow", "allow": ["203.0.113.0/24"]});
-- NULL for a runtime without a network of its own.
ALTER TABLE vms ADD COLUMN network TEXT;
