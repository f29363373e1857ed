-- The build each worker's agent says it is when it registers (0.1.0+3f2c1ab), so that an operator
-- can see which workers an upgrade has reached.
ALTER TABLE workers ADD COLUMN agent_version VARCHAR(128);
