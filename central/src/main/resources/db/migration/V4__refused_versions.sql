-- The versions an edge refused (NACKed), per type: JSON object, type URL -> version. Every replica
-- reads it when a stream of the edge starts, so a refused version is not sent again on any
-- replica until the edge has taken another version of that type. Same SQL for H2 and PostgreSQL.
ALTER TABLE edges ADD COLUMN refused_versions TEXT;
