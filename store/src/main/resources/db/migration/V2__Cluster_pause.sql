-- A cluster-wide pause: no placements or moves while terms go on observing, judging health and
-- reporting; and, apart from it, new submissions refused with the reason.
ALTER TABLE cluster_settings ADD COLUMN scheduling_paused BOOLEAN DEFAULT FALSE NOT NULL;
ALTER TABLE cluster_settings ADD COLUMN reject_submissions BOOLEAN DEFAULT FALSE NOT NULL;
ALTER TABLE cluster_settings ADD COLUMN pause_reason VARCHAR(512);
ALTER TABLE cluster_settings ADD COLUMN paused_at TIMESTAMP WITH TIME ZONE;
