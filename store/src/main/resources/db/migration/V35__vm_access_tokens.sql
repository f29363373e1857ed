-- Short-lived tokens that open one VM's sockets (port-forward, console, exec) and nothing else: stored
-- only as SHA-256, bound to the VM's submission (a VM made again under the name honours none of them).
CREATE TABLE vm_access_tokens (
    token_hash VARCHAR(64) NOT NULL PRIMARY KEY,
    vm         VARCHAR(63) NOT NULL,
    vm_seq     BIGINT      NOT NULL,
    created_by VARCHAR(63) NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL,
    expires_at TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX vm_access_tokens_expiry ON vm_access_tokens (expires_at);
