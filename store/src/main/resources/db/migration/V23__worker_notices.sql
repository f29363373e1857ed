-- What a worker's agent says a person should know of it (limits it cannot enforce, guests emulated in
-- software): a JSON list of sentences, replaced at each registration; NULL reads as none.
ALTER TABLE workers ADD COLUMN notices TEXT;
