package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A real gRPC client and server (grpc-java) with the edge between them, HTTP/2 on both sides: the
 * request's body, the response's body and its trailers ({@code grpc-status}, custom metadata) cross
 * the filter chain unchanged, and a trailers-only error (HEADERS with END_STREAM) reaches the client.
 */
class GrpcThroughEdgeIT {

  private static final MethodDescriptor.Marshaller<String> TEXT = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      try {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };

  private static final MethodDescriptor<String, String> ECHO = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY)
      .setFullMethodName("spillway.test.Echo/Say")
      .setRequestMarshaller(TEXT)
      .setResponseMarshaller(TEXT)
      .build();

  private static final Metadata.Key<String> SEEN_BY = Metadata.Key.of("x-served-by", Metadata.ASCII_STRING_MARSHALLER);

  private Server server;
  private EdgeHarness edge;
  private ManagedChannel channel;

  @AfterEach
  void close() throws Exception {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    if (edge != null) {
      edge.close();
    }
    if (server != null) {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private void start() throws Exception {
    ServerServiceDefinition echo = ServerServiceDefinition.builder("spillway.test.Echo")
        .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, observer) -> {
          if (request.equals("fail")) {
            observer.onError(Status.PERMISSION_DENIED.withDescription("not you").asRuntimeException());
            return;
          }
          observer.onNext("echo:" + request);
          observer.onCompleted();
        }))
        .build();
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(echo)
        .intercept(new io.grpc.ServerInterceptor() {
          @Override
          public <Q, S> io.grpc.ServerCall.Listener<Q> interceptCall(io.grpc.ServerCall<Q, S> call, Metadata headers,
              io.grpc.ServerCallHandler<Q, S> next) {
            return next.startCall(new io.grpc.ForwardingServerCall.SimpleForwardingServerCall<>(call) {
              @Override
              public void close(Status status, Metadata trailers) {
                trailers.put(SEEN_BY, "origin");
                super.close(status, trailers);
              }
            }, headers);
          }
        })
        .build().start();
    edge = EdgeHarness.start(bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: grpc }
        """, cluster("grpc", """
        typed_extension_protocol_options:
          envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
            "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
            explicit_http_config:
              http2_protocol_options: {}
        """, server.getPort())));
    channel = NettyChannelBuilder.forAddress("127.0.0.1", edge.port()).usePlaintext().build();
  }

  @Test
  void aUnaryCallAndItsTrailersCrossTheEdge() throws Exception {
    start();
    AtomicReference<Metadata> headers = new AtomicReference<>();
    AtomicReference<Metadata> trailers = new AtomicReference<>();
    var call = ClientInterceptors.intercept(channel, MetadataUtils.newCaptureMetadataInterceptor(headers, trailers));
    String reply = ClientCalls.blockingUnaryCall(call, ECHO, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
        "hello");
    assertThat(reply).isEqualTo("echo:hello");
    assertThat(headers.get()).isNotNull();
    assertThat(trailers.get().get(SEEN_BY)).isEqualTo("origin");
    assertThat(edge.awaitStat("cluster.grpc.upstream_cx_http2_total", 1)).isEqualTo(1);
  }

  @Test
  void aTrailersOnlyErrorReachesTheClientWithItsStatus() throws Exception {
    start();
    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, ECHO,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "fail"))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
          assertThat(e.getStatus().getDescription()).isEqualTo("not you");
        });
  }
}
