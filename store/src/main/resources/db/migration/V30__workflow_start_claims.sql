-- Which host is making an owed start, and until when: another host's sweep leaves it alone meanwhile,
-- and takes it once the claim has lapsed (the host died, or Temporal did not answer). Without it, two
-- hosts started the same workflows during a large burst: the submitting host was still working through
-- them when the other's sweep found them owed.
ALTER TABLE workflow_starts ADD COLUMN claimed_by VARCHAR(64);
ALTER TABLE workflow_starts ADD COLUMN claimed_until TIMESTAMP WITH TIME ZONE;
