/** Route tables compiled from route configurations, and request matching (hot path). */
package io.spillway.edge.router;
