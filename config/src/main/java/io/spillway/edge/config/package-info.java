/** Envoy v3 protos translated once into validated, immutable snapshot records; the only package that sees protobuf. */
package io.spillway.edge.config;
