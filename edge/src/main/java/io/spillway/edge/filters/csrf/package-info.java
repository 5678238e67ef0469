/** envoy.filters.http.csrf: refuses state-changing requests whose source origin is not the request's own host. */
package io.spillway.edge.filters.csrf;
