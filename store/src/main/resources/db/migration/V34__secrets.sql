-- Secrets a VM refers to by name: each value sealed (AES-256-GCM, with the operator's key and the
-- secret's name as associated data), base64 of nonce and ciphertext; never returned by the API.
CREATE TABLE secrets (
    name       VARCHAR(63) NOT NULL PRIMARY KEY,
    sealed     TEXT        NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at TIMESTAMP WITH TIME ZONE NOT NULL
);

-- Which of a VM's values are secrets, by name (JSON: {"env": {"TOKEN": "runner-token"},
-- "userData": "cloud-config"}); NULL for none.
ALTER TABLE vms ADD COLUMN secret_refs TEXT;
