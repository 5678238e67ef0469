/** envoy.filters.http.lua: Lua scripts on the request and the response, through Envoy's stream handle API. */
package io.spillway.edge.filters.lua;
