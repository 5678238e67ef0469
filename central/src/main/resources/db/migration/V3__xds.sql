-- The xDS server's status columns (issue 7). Same SQL for H2 (MODE=PostgreSQL) and PostgreSQL.

-- Which stream set connected = TRUE, so a late close of an older stream (maybe on another replica)
-- does not mark a reconnected edge disconnected.
ALTER TABLE edges ADD COLUMN xds_stream VARCHAR(64);
-- The last stream refused for this edge id (wrong credential), without any secret.
ALTER TABLE edges ADD COLUMN last_auth_failure TEXT;
ALTER TABLE edges ADD COLUMN last_auth_failure_at TIMESTAMP WITH TIME ZONE;
