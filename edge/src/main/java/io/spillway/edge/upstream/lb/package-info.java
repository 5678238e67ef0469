/**
 * Load-balancing building blocks that know nothing of hosts or protobuf: ORCA load reports and
 * their parser, per-endpoint weights and the stride scheduler workers pick from (hot path).
 */
package io.spillway.edge.upstream.lb;
