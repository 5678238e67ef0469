package io.spillway.edge.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.service.discovery.v3.Resource;
import org.junit.jupiter.api.Test;

/** What a resource that cannot be decoded is called in the NACK: its type, and its name when it can be read. */
class ResourceDecoderTest {

  private static final String CDS = XdsResourceType.CLUSTER.typeUrl();
  /** A cluster named "web" followed by a zero tag, which protobuf refuses. */
  private static final ByteString BROKEN = Cluster.newBuilder().setName("web").build().toByteString()
      .concat(ByteString.copyFrom(new byte[] {0}));

  @Test
  void aBareResourceIsNamedFromWhatParsedBeforeTheProblem() {
    assertThatThrownBy(() -> ResourceDecoder.decodeSotw(XdsResourceType.CLUSTER,
        Any.newBuilder().setTypeUrl(CDS).setValue(BROKEN).build(), 3))
        .hasMessageStartingWith("cluster \"web\" (resources[3]) cannot be decoded as " + CDS + ": ");
  }

  @Test
  void withoutANameItsPositionNamesIt() {
    assertThatThrownBy(() -> ResourceDecoder.decodeSotw(XdsResourceType.CLUSTER,
        Any.newBuilder().setTypeUrl(CDS).setValue(ByteString.copyFrom(new byte[] {0})).build(), 0))
        .hasMessageStartingWith("cluster at resources[0] cannot be decoded as " + CDS + ": ");
    assertThatThrownBy(() -> ResourceDecoder.decodeSotw(XdsResourceType.ROUTE, Any.pack(Cluster.getDefaultInstance()), 1))
        .hasMessage("route_configuration at resources[1] is a " + CDS + " in a "
            + XdsResourceType.ROUTE.typeUrl() + " response");
  }

  @Test
  void aWrappedOrDeltaResourceIsNamedByItsWrapper() throws Exception {
    Resource wrapped = Resource.newBuilder().setName("api")
        .setResource(Any.newBuilder().setTypeUrl(CDS).setValue(ByteString.copyFrom(new byte[] {0}))).build();
    assertThatThrownBy(() -> ResourceDecoder.decodeSotw(XdsResourceType.CLUSTER, Any.pack(wrapped), 0))
        .hasMessageStartingWith("cluster \"api\" (resources[0]) cannot be decoded as " + CDS + ": ");
    assertThatThrownBy(() -> ResourceDecoder.decodeDelta(XdsResourceType.CLUSTER, wrapped, 2))
        .hasMessageStartingWith("cluster \"api\" (resources[2]) cannot be decoded as " + CDS + ": ");
    assertThatThrownBy(() -> ResourceDecoder.decodeDelta(XdsResourceType.CLUSTER,
        Resource.newBuilder().setName("empty").build(), 0))
        .hasMessage("cluster \"empty\" (resources[0]) has no resource body");
    assertThat(ResourceDecoder.decodeDelta(XdsResourceType.CLUSTER,
        Resource.newBuilder().setName("web").setResource(Any.pack(Cluster.newBuilder().setName("web").build())).build(),
        0).name()).isEqualTo("web");
  }
}
