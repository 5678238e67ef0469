/** Per-edge policy sections (overload, accessLog, rateLimits): PATCH semantics, revisions and audit. */
package io.spillway.central.policy;
