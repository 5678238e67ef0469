package io.spillway.central.xds;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Message;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Everything one edge is served at one moment: the Envoy types and the overload policy, each
 * with its version, and (for Delta) each resource's version, a hash of its deterministic
 * serialization.
 */
final class EdgeSnapshot {

  private final Map<XdsType, TypeResources> types;
  private final Map<XdsType, Map<String, String>> hashes = new EnumMap<>(XdsType.class);
  /** Load order among an edge's snapshots, set once by {@link EdgeStreams}: a newer one replaces an older one. */
  volatile long sequence;

  /** The hash of the edge's credential when this was read, or null when the edge was not registered. */
  final String credentialHash;

  /**
   * @param credentialHash the hash of the edge's credential read with the rest, or null when the
   *     edge is not registered (then no stream of it may stay open)
   */
  EdgeSnapshot(EdgeResources resources, TypeResources policy, String credentialHash) {
    this.credentialHash = credentialHash;
    Map<XdsType, TypeResources> all = new EnumMap<>(XdsType.class);
    for (XdsType type : XdsType.values()) {
      all.put(type, type == XdsType.OVERLOAD_POLICY ? policy : resources.of(type));
    }
    this.types = all;
  }

  /** Whether a stream that presented this credential hash may still be served. */
  boolean admits(String streamCredentialHash) {
    return credentialHash != null && io.spillway.central.auth.Secrets.constantTimeEquals(credentialHash, streamCredentialHash);
  }

  TypeResources of(XdsType type) {
    return types.get(type);
  }

  /** Resource name → version (hash) of one type; computed once. */
  synchronized Map<String, String> hashes(XdsType type) {
    return hashes.computeIfAbsent(type, t -> {
      Map<String, String> byName = new LinkedHashMap<>();
      types.get(t).resources().forEach((name, message) -> byName.put(name, hash(message)));
      return byName;
    });
  }

  static String hash(Message message) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      CodedOutputStream out = CodedOutputStream.newInstance(bytes);
      out.useDeterministicSerialization();
      message.writeTo(out);
      out.flush();
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes.toByteArray());
      return HexFormat.of().formatHex(digest, 0, 12);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
