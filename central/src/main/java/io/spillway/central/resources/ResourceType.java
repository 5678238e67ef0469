package io.spillway.central.resources;

import com.google.protobuf.Message;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.service.runtime.v3.Runtime;
import java.util.Arrays;
import java.util.Optional;

/**
 * The resource kinds central pushes, each with its name field: the four Envoy configuration types
 * in xDS delivery order (clusters and endpoints before the listeners and routes that use them),
 * then the runtime layers (RTDS), which no other type depends on.
 */
public enum ResourceType {
  /** CDS: {@link Cluster}, named by {@code name}. */
  CLUSTERS("clusters", Cluster.getDefaultInstance(), "name"),
  /** EDS: {@link ClusterLoadAssignment}, named by {@code cluster_name}. */
  ENDPOINTS("endpoints", ClusterLoadAssignment.getDefaultInstance(), "cluster_name"),
  /** LDS: {@link Listener}, named by {@code name}. */
  LISTENERS("listeners", Listener.getDefaultInstance(), "name"),
  /** RDS: {@link RouteConfiguration}, named by {@code name}. */
  ROUTES("routes", RouteConfiguration.getDefaultInstance(), "name"),
  /** RTDS: {@link Runtime}, one runtime layer's values, named by {@code name}. */
  RUNTIMES("runtimes", Runtime.getDefaultInstance(), "name");

  private final String jsonName;
  private final Message prototype;
  private final String nameField;

  ResourceType(String jsonName, Message prototype, String nameField) {
    this.jsonName = jsonName;
    this.prototype = prototype;
    this.nameField = nameField;
  }

  /**
   * The name in paths and JSON: {@code clusters}, {@code endpoints}, {@code listeners},
   * {@code routes}, {@code runtimes}.
   */
  public String jsonName() {
    return jsonName;
  }

  /** The default instance of the proto message. */
  public Message prototype() {
    return prototype;
  }

  /** The xDS type URL, e.g. {@code type.googleapis.com/envoy.config.cluster.v3.Cluster}. */
  public String typeUrl() {
    return "type.googleapis.com/" + prototype.getDescriptorForType().getFullName();
  }

  /** The proto field that names a resource of this type. */
  public String nameField() {
    return nameField;
  }

  /** The resource's name. */
  public String nameOf(Message resource) {
    return (String) resource.getField(resource.getDescriptorForType().findFieldByName(nameField));
  }

  /** The resource with its name set. */
  public Message withName(Message resource, String name) {
    return resource.toBuilder().setField(resource.getDescriptorForType().findFieldByName(nameField), name).build();
  }

  /** The type of a path segment, if it names one. */
  public static Optional<ResourceType> fromJsonName(String name) {
    return Arrays.stream(values()).filter(t -> t.jsonName.equals(name)).findFirst();
  }
}
