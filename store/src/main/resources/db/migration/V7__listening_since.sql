-- When the scheduler came back after not running terms for longer than a worker may be silent (every
-- host down, or the scheduler stopped): workers are judged on what they could say since.
ALTER TABLE cluster_status ADD COLUMN listening_since TIMESTAMP WITH TIME ZONE;
