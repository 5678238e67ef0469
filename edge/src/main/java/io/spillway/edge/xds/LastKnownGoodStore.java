package io.spillway.edge.xds;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Timestamp;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last-known-good xDS state on disk: {@code <directory>/xds-state.pb}, rewritten after every
 * accepted update so that an edge restarting while its control plane is down can start from it.
 *
 * <p>The file is an 8-byte magic ({@code SPWXDS01}), the payload's length and CRC32C (4 bytes each,
 * big-endian), then an {@code spillway.edge.xds.v1.XdsState} message. A save writes a temporary file
 * in the same directory, forces it to disk, renames it over the old file atomically and forces the
 * directory, so a crash leaves either the old or the new state, never a mix. A load that meets a
 * missing file returns nothing quietly; a truncated, corrupt or unreadable file is reported in one
 * warning naming the file and the reason and is ignored: a load never throws.
 *
 * <p>Not thread-safe: the ADS client calls it from its one thread.
 */
public final class LastKnownGoodStore {

  /** The file's name inside the state directory. */
  public static final String FILE_NAME = "xds-state.pb";

  private static final Logger log = LoggerFactory.getLogger(LastKnownGoodStore.class);
  private static final byte[] MAGIC = "SPWXDS01".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final int HEADER_BYTES = MAGIC.length + 8;
  private static final int FORMAT = 1;

  /**
   * The accepted state of one type.
   *
   * @param version the accepted {@code version_info} (SotW) or {@code system_version_info} (Delta)
   * @param resources by name, in the order they were accepted
   */
  public record StoredType(String version, Map<String, StoredResource> resources) {
    public StoredType {
      Objects.requireNonNull(version, "version");
      resources = Collections.unmodifiableMap(new LinkedHashMap<>(resources));
    }
  }

  /**
   * One accepted resource.
   *
   * @param version its own version (Delta), empty for SotW
   * @param resource the resource as received
   */
  public record StoredResource(String version, Any resource) {
    public StoredResource {
      Objects.requireNonNull(version, "version");
      Objects.requireNonNull(resource, "resource");
    }
  }

  private final Path directory;
  private final Path file;

  /** A store writing {@code <directory>/xds-state.pb}; the directory is created on the first save. */
  public LastKnownGoodStore(Path directory) {
    this.directory = Objects.requireNonNull(directory, "directory");
    this.file = directory.resolve(FILE_NAME);
  }

  /** The state file. */
  public Path file() {
    return file;
  }

  /**
   * Replaces the stored state with {@code state} atomically.
   *
   * @param state every type that has an accepted version
   * @param now when the state is written
   * @throws IOException when the directory or file cannot be written; the previous file stays
   */
  public void save(Map<XdsResourceType, StoredType> state, Instant now) throws IOException {
    XdsStateProto.XdsState.Builder message = XdsStateProto.XdsState.newBuilder()
        .setFormat(FORMAT)
        .setWrittenAt(Timestamp.newBuilder().setSeconds(now.getEpochSecond()).setNanos(now.getNano()));
    for (XdsResourceType type : XdsResourceType.values()) {
      StoredType stored = state.get(type);
      if (stored == null) {
        continue;
      }
      XdsStateProto.TypeState.Builder typeState = message.addTypesBuilder()
          .setTypeUrl(type.typeUrl())
          .setVersionInfo(stored.version());
      stored.resources().forEach((name, resource) -> typeState.addResourcesBuilder()
          .setName(name)
          .setVersion(resource.version())
          .setResource(resource.resource()));
    }
    byte[] payload = message.build().toByteArray();
    CRC32C crc = new CRC32C();
    crc.update(payload);
    ByteBuffer bytes = ByteBuffer.allocate(HEADER_BYTES + payload.length);
    bytes.put(MAGIC).putInt(payload.length).putInt((int) crc.getValue()).put(payload).flip();

    Files.createDirectories(directory);
    Path temp = Files.createTempFile(directory, FILE_NAME + ".", ".tmp");
    try {
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        while (bytes.hasRemaining()) {
          channel.write(bytes);
        }
        channel.force(true);
      }
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
    forceDirectory();
  }

  /**
   * The stored state, by type in subscription order; empty when there is no file or it cannot be
   * used (then one warning says why). Never throws.
   */
  public Map<XdsResourceType, StoredType> load() {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return Map.of();
    } catch (IOException | RuntimeException e) {
      return ignored("it cannot be read (" + e + ")");
    }
    if (bytes.length < HEADER_BYTES || !Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      return ignored("it is not a Spillway xDS state file (bad header)");
    }
    ByteBuffer header = ByteBuffer.wrap(bytes, MAGIC.length, 8);
    int length = header.getInt();
    int expectedCrc = header.getInt();
    if (length != bytes.length - HEADER_BYTES) {
      return ignored("it is truncated or has trailing bytes (" + (bytes.length - HEADER_BYTES)
          + " payload bytes, header says " + length + ")");
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, HEADER_BYTES, length);
    if ((int) crc.getValue() != expectedCrc) {
      return ignored("its checksum does not match (the file is corrupt)");
    }
    XdsStateProto.XdsState message;
    try {
      message = XdsStateProto.XdsState.parseFrom(ByteBuffer.wrap(bytes, HEADER_BYTES, length));
    } catch (InvalidProtocolBufferException e) {
      return ignored("it is not a valid state message (" + e.getMessage() + ")");
    }
    if (message.getFormat() != FORMAT) {
      return ignored("it has format " + message.getFormat() + ", this edge reads format " + FORMAT);
    }
    Map<XdsResourceType, StoredType> state = new EnumMap<>(XdsResourceType.class);
    for (XdsStateProto.TypeState typeState : message.getTypesList()) {
      XdsResourceType type = XdsResourceType.ofUrl(typeState.getTypeUrl());
      if (type == null) {
        return ignored("it holds an unknown resource type " + typeState.getTypeUrl());
      }
      Map<String, StoredResource> resources = new LinkedHashMap<>();
      for (XdsStateProto.Resource resource : typeState.getResourcesList()) {
        resources.put(resource.getName(), new StoredResource(resource.getVersion(), resource.getResource()));
      }
      state.put(type, new StoredType(typeState.getVersionInfo(), resources));
    }
    return Collections.unmodifiableMap(state);
  }

  private Map<XdsResourceType, StoredType> ignored(String reason) {
    log.warn("Ignoring the last-known-good xDS state {}: {}", file, reason);
    return Map.of();
  }

  private void forceDirectory() {
    try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
      dir.force(true);
    } catch (IOException e) {
      // Some file systems cannot open or sync a directory; the rename itself is still atomic.
      log.debug("Could not sync directory {}: {}", directory, e.toString());
    }
  }
}
