-- The SHA-256 of the agent's HTTPS certificate, pinned at its first registration (issue 17).
ALTER TABLE workers ADD COLUMN certificate_sha256 VARCHAR(64);
