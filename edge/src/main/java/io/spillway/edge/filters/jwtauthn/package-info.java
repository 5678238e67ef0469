/**
 * envoy.filters.http.jwt_authn: verifies JSON Web Tokens against each provider's key set (kept
 * compiled, immutable) by the rule or route's requirement, and forwards the verified payload.
 */
package io.spillway.edge.filters.jwtauthn;
