package io.spillway.report;

import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import io.spillway.report.EdgeReportProto.EdgeReport;
import io.spillway.report.EdgeReportProto.ReportAck;

/**
 * The gRPC description of {@code spillway.central.report.v1.EdgeReportService}
 * ({@code edge_report.proto}), shared by the edge's reporter and central's server: the build
 * compiles the messages with protoc but has no gRPC code generator, so the one method is described
 * here, with the protobuf marshallers generated stubs would use.
 */
public final class EdgeReportService {

  /** The service's full name; a control plane that serves it names it in {@code control_plane.identifier}. */
  public static final String SERVICE_NAME = "spillway.central.report.v1.EdgeReportService";

  /** {@code rpc Report(stream EdgeReport) returns (ReportAck)}. */
  public static final MethodDescriptor<EdgeReport, ReportAck> REPORT = MethodDescriptor.<EdgeReport, ReportAck>newBuilder()
      .setType(MethodDescriptor.MethodType.CLIENT_STREAMING)
      .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE_NAME, "Report"))
      .setRequestMarshaller(ProtoUtils.marshaller(EdgeReport.getDefaultInstance()))
      .setResponseMarshaller(ProtoUtils.marshaller(ReportAck.getDefaultInstance()))
      .build();

  private EdgeReportService() {}

  /** Whether a control plane identifier names this service as one of its words (space, comma or semicolon separated). */
  public static boolean advertisedBy(String identifier) {
    for (String word : identifier.split("[\\s,;]+")) {
      if (word.equals(SERVICE_NAME)) {
        return true;
      }
    }
    return false;
  }
}
