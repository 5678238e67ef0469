package io.spillway.edge.xds;

import com.google.protobuf.Message;
import io.spillway.edge.config.XdsClientConfig;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An immutable snapshot of the ADS client for the admin pages ({@code /xds}, {@code /config_dump}).
 *
 * @param connected whether a stream to the server is established
 * @param server the server of the current or last stream ({@code host:port}), if any
 * @param variant State-of-the-World or Delta
 * @param types every resource type, in subscription order
 */
public record XdsStatus(boolean connected, Optional<String> server, XdsClientConfig.Variant variant,
    Map<XdsResourceType, TypeStatus> types) {

  public XdsStatus {
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(variant, "variant");
    types = Collections.unmodifiableMap(new EnumMap<>(types));
  }

  /**
   * The state of one resource type.
   *
   * @param acceptedVersion the last accepted {@code version_info} / {@code system_version_info}, if any
   * @param lastNonce the nonce of the last response of this type (empty before the first)
   * @param lastNackMessage the {@code error_detail} of the last NACK, if any
   * @param lastNackTime when that NACK was sent
   * @param lastUpdateTime when a set of this type was last accepted (or loaded from disk)
   * @param fromLastKnownGood whether the accepted set was loaded from the last-known-good file and
   *     no server has replaced it yet
   * @param subscribed the names subscribed to; empty for a wildcard type (CDS, LDS, policy)
   * @param resources the accepted resources by name, in the order they arrived
   */
  public record TypeStatus(
      Optional<String> acceptedVersion,
      String lastNonce,
      Optional<String> lastNackMessage,
      Optional<Instant> lastNackTime,
      Optional<Instant> lastUpdateTime,
      boolean fromLastKnownGood,
      List<String> subscribed,
      Map<String, Message> resources) {

    public TypeStatus {
      subscribed = List.copyOf(subscribed);
      resources = Collections.unmodifiableMap(new LinkedHashMap<>(resources));
    }

    /** The accepted resources' names. */
    public List<String> resourceNames() {
      return List.copyOf(resources.keySet());
    }

    /** How many resources are accepted. */
    public int resourceCount() {
      return resources.size();
    }
  }
}
