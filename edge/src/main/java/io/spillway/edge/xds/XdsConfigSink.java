package io.spillway.edge.xds;

import com.google.protobuf.Message;
import io.spillway.edge.config.ConfigException;
import java.util.Map;

/**
 * Where the ADS client hands accepted xDS state to the running edge.
 *
 * <p>The client decodes each response, merges it into the complete current set of its type (the
 * whole set for State-of-the-World; the previous set plus additions minus removals for Delta) and
 * calls {@link #apply} with that complete set. The sink validates every resource with the same
 * translator the bootstrap uses and then either applies the whole set or nothing. A thrown
 * {@link ConfigException} becomes the NACK's {@code error_detail}; its message names the resource
 * and the field.
 *
 * <p>Calls arrive on one thread (the client's), in the protocol's order: clusters, then endpoints,
 * then listeners, then routes; the overload policy whenever it changes.
 */
public interface XdsConfigSink {

  /**
   * Validates and applies the complete current set of one resource type.
   *
   * @param type the resource type
   * @param resources resource name to decoded resource: {@code envoy.config.cluster.v3.Cluster},
   *     {@code envoy.config.endpoint.v3.ClusterLoadAssignment}, {@code envoy.config.listener.v3.Listener},
   *     {@code envoy.config.route.v3.RouteConfiguration} or {@code spillway.policy.v1.OverloadPolicy}
   * @throws ConfigException when any resource is invalid; nothing of the set is applied
   */
  void apply(XdsResourceType type, Map<String, ? extends Message> resources) throws ConfigException;
}
