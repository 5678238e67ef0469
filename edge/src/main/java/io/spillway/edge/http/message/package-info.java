/** One request and response model for both protocols, shared by the filter chain and the upstream codecs. */
package io.spillway.edge.http.message;
