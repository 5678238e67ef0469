/** Envoy-named counters, gauges and histograms, cheap on the hot path, with the /stats, JSON and Prometheus renderings. */
package io.spillway.edge.stats;
