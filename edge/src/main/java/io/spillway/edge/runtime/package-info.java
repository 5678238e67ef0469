/**
 * Envoy's layered runtime: keys and values from static, disk and admin layers, merged into one
 * immutable {@link io.spillway.edge.runtime.RuntimeSnapshot} that readers on any thread take with
 * a single volatile read.
 */
package io.spillway.edge.runtime;
