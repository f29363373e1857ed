-- A worker being drained (Nomad's node drain, kubectl drain): it is paused, and until drain_deadline the
-- term moves its VMs that restart elsewhere; then it evicts what is left. drain_progress is the term's
-- line on what it still holds. A resume ends the drain (all three NULL again).
ALTER TABLE workers ADD COLUMN drain_deadline TIMESTAMP WITH TIME ZONE;
ALTER TABLE workers ADD COLUMN drain_started_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE workers ADD COLUMN drain_progress VARCHAR(1024);
-- The generation of a VM whose workflow the term told that its worker's drain deadline passed: told once.
ALTER TABLE vms ADD COLUMN evicted_generation INTEGER;
