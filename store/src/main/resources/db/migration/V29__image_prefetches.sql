-- Images to fetch ahead onto the workers whose labels match a selector, before VMs need them.
CREATE TABLE image_prefetches (
    id         VARCHAR(64)   NOT NULL PRIMARY KEY,
    image      VARCHAR(2048) NOT NULL,
    selector   TEXT          NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL
);

-- The fetches a worker's agent has under way or that failed, as it said with its heartbeat
-- (JSON: {"<image>": {"state": "pulling", "message": "pulling 40% of 2048 MiB"}}); NULL for none.
ALTER TABLE workers ADD COLUMN pulls TEXT;
