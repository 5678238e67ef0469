package io.spillway.central.xds;

import io.grpc.CallCredentials;
import io.grpc.ChannelCredentials;
import io.grpc.CompositeChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.Metadata;
import io.grpc.xds.XdsCredentialsProvider;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * Channel credentials for grpc-java's xDS client ({@link GrpcXdsClientIT}): plaintext plus
 * {@code authorization: Bearer <credential>} on every call, which is what central's ADS server
 * requires of an edge. grpc-java's bootstrap has no call credentials for the xDS server (its
 * {@code call_creds} are for {@code allowed_grpc_services} only), but {@code channel_creds} types
 * come from {@link XdsCredentialsProvider}s found with {@link java.util.ServiceLoader}; this one is
 * registered in {@code src/test/resources/META-INF/services/io.grpc.xds.XdsCredentialsProvider} and
 * used with {@code {"type": "spillway_bearer", "config": {"credential": "<edge credential>"}}}.
 */
public final class BearerXdsCredentialsProvider extends XdsCredentialsProvider {

  static final String TYPE = "spillway_bearer";
  private static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  public BearerXdsCredentialsProvider() {}

  @Override
  protected ChannelCredentials newChannelCredentials(Map<String, ?> config) {
    Object credential = config == null ? null : config.get("credential");
    if (!(credential instanceof String bearer) || bearer.isEmpty()) {
      return null; // not usable: grpc-xds reports the bootstrap as invalid
    }
    return CompositeChannelCredentials.create(InsecureChannelCredentials.create(), new CallCredentials() {
      @Override
      public void applyRequestMetadata(RequestInfo info, Executor executor, MetadataApplier applier) {
        Metadata headers = new Metadata();
        headers.put(AUTHORIZATION, "Bearer " + bearer);
        applier.apply(headers);
      }
    });
  }

  @Override
  protected String getName() {
    return TYPE;
  }

  @Override
  public boolean isAvailable() {
    return true;
  }

  @Override
  public int priority() {
    return 5;
  }
}
