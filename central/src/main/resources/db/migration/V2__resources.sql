-- Resources for the edges (issue 6 item 5): Envoy v3 clusters, endpoints (ClusterLoadAssignment),
-- listeners and routes (RouteConfiguration), each assigned to one edge or to a label selector.
-- One history for H2 (MODE=PostgreSQL) and PostgreSQL: keep to SQL both understand.

-- target is 'edge:<id>' or 'selector:<canonical selector>', so one key serves both kinds.
-- A deleted resource keeps its row (body NULL) so its revisions only grow, as edge_policies do.
CREATE TABLE edge_resources (
  type        VARCHAR(16)   NOT NULL,
  target      VARCHAR(1100) NOT NULL,
  name        VARCHAR(255)  NOT NULL,
  edge_id     VARCHAR(128)  REFERENCES edges (id) ON DELETE CASCADE,
  selector    VARCHAR(1024),
  body        TEXT,
  revision    BIGINT        NOT NULL,
  change_seq  BIGINT        NOT NULL,
  updated_at  TIMESTAMP WITH TIME ZONE NOT NULL,
  updated_by  VARCHAR(64)   NOT NULL,
  PRIMARY KEY (type, target, name),
  CHECK ((edge_id IS NULL AND selector IS NOT NULL) OR (edge_id IS NOT NULL AND selector IS NULL))
);

CREATE INDEX edge_resources_edge ON edge_resources (edge_id);

-- The change counter: every resource write locks this row first (so writes, their cross-resource
-- checks and endpoint registrations are serialised) and bumps it.
CREATE TABLE resource_changes (
  id   INT    PRIMARY KEY,
  seq  BIGINT NOT NULL
);

INSERT INTO resource_changes (id, seq) VALUES (1, 0);

-- Audit rows of resources name an edge or a selector, and a longer section (resources/<type>/<name>).
ALTER TABLE audit ALTER COLUMN edge_id DROP NOT NULL;
ALTER TABLE audit ALTER COLUMN section SET DATA TYPE VARCHAR(512);
ALTER TABLE audit ADD COLUMN selector VARCHAR(1024);
