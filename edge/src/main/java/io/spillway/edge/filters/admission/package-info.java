/** Inbound admission as the first stage of every HTTP filter chain. */
package io.spillway.edge.filters.admission;
