/**
 * The edge report protocol ({@code spillway.central.report.v1}): the messages generated from
 * {@code edge_report.proto} and the one gRPC method, shared by the edge that reports and central that
 * receives.
 */
package io.spillway.report;
