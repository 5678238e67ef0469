/** Resources for the edges: Envoy v3 clusters, endpoints, listeners and routes per edge or label selector, validated with the edge's translator. */
package io.spillway.central.resources;
