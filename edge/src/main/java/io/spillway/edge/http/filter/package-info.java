/** The HTTP filter API: the request and response model, decoder and encoder filters, their callbacks and factories. */
package io.spillway.edge.http.filter;
