/** envoy.filters.http.ext_authz: an HTTP authorization service decides before the router. */
package io.spillway.edge.filters.extauthz;
