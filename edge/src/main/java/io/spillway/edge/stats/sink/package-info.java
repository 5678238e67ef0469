/** Stats sinks: the periodic flush of the stats store and the statsd / DogStatsD UDP sinks it feeds. */
package io.spillway.edge.stats.sink;
