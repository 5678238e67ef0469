/** JMH benchmarks of the edge's hot-path code: route matching, load-balancer picks. */
package io.spillway.bench;
