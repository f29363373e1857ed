-- Scoot's snapshot groups: the images a worker's agent holds, each with when a task last used it, as a
-- JSON object (image -> time). Written by the agent's heartbeats when what it holds changed; read by the
-- term, which places a VM on a worker holding its image first. Null: the agent said nothing yet.
ALTER TABLE workers ADD COLUMN images TEXT;
