/** The HTTP connection manager: downstream HTTP/1.1 and HTTP/2 streams, the router filter, local replies (hot path). */
package io.spillway.edge.http;
