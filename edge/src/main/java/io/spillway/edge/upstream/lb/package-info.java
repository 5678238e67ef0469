/**
 * Load-balancing building blocks that know nothing of hosts or protobuf: ORCA load reports and
 * their parser, per-endpoint weights, the stride scheduler workers pick from, xxHash64 and the
 * ring hash and Maglev tables (hot path).
 */
package io.spillway.edge.upstream.lb;
