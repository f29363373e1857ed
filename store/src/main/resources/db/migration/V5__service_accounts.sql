-- Who may call the API: service accounts with roles, their tokens stored only as SHA-256 hashes.
CREATE TABLE service_accounts (
    name       VARCHAR(63)  NOT NULL PRIMARY KEY,
    token_hash VARCHAR(64)  NOT NULL UNIQUE,
    roles      TEXT         NOT NULL,
    worker     VARCHAR(63),
    created_at TIMESTAMP WITH TIME ZONE NOT NULL
);

-- The secret the controller presents to a worker's agent; the agent chose it and sent it when it
-- registered. Never returned by the API.
ALTER TABLE workers ADD COLUMN agent_secret VARCHAR(128);
