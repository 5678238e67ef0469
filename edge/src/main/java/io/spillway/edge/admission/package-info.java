/** Inbound admission: the adaptive concurrency limit, priority tiers and the permits requests hold. */
package io.spillway.edge.admission;
