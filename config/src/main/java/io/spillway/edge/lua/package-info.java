/** Lua scripts for envoy.filters.http.lua: compiling once, the sandbox each worker runs them in, the instruction budget. */
package io.spillway.edge.lua;
