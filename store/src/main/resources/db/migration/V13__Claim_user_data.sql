-- User data handed to a VM claimed from a warm pool, carried by its outbox call ('deliver') to the
-- agent, which writes it into the running guest: the data itself (up to 64 KiB), or the name of the
-- secret holding it. NULL for every other call.
ALTER TABLE outbox ADD COLUMN payload TEXT;
ALTER TABLE outbox ADD COLUMN secret VARCHAR(253);
