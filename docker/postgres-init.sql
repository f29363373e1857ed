-- Temporal's schema step (temporal-setup.sh schema) creates its own databases (temporal,
-- temporal_visibility); Rota's is this one.
CREATE DATABASE rota;
