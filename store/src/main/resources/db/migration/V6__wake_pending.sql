-- A wake-up already on its way to the scheduler: further ones are not signalled until a term starts,
-- so a burst of submissions costs the scheduler's history one signal, not one per submission.
ALTER TABLE cluster_status ADD COLUMN wake_pending BOOLEAN DEFAULT FALSE NOT NULL;
INSERT INTO cluster_status (id, term, last_term_at, last_term_millis, wake_pending)
SELECT 'rota-cluster', 0, NULL, 0, FALSE WHERE NOT EXISTS (SELECT 1 FROM cluster_status WHERE id = 'rota-cluster');
