/** The admin listener: Envoy's operational endpoints (/ready, /stats, /clusters, /config_dump, ...). */
package io.spillway.edge.admin;
