-- Temporal's auto-setup creates its own databases (temporal, temporal_visibility); Rota's is this one.
CREATE DATABASE rota;
