/**
 * The seam between the ext_authz filter (hot path) and an authorization service reached over gRPC
 * (control side): what a check asks and answers, in plain Java types, and the client that makes it.
 */
package io.spillway.edge.authz;
