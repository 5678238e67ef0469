package io.spillway.central.resources;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.spillway.edge.config.BootstrapLoader;
import io.spillway.edge.config.ConfigException;
import io.spillway.edge.config.ExtensionRegistry;
import java.io.UncheckedIOException;

/**
 * Reads resources as the edge reads them ({@link BootstrapLoader#parseResource}: YAML or JSON,
 * snake_case or camelCase, the bootstrap's leniencies) and writes the one canonical form central
 * stores and answers: proto3 JSON with Envoy's snake_case field names.
 */
final class ResourceCodec {

  /** Deepest nesting a resource body may have; real listeners stay well under 30 levels. */
  static final int MAX_NESTING_DEPTH = 64;
  /** How much stored text the parsed-resource cache covers (characters). */
  static final long STORED_CACHE_CHARS = 32L * 1024 * 1024;

  private final ExtensionRegistry registry = ExtensionRegistry.standard();
  private final JsonFormat.Printer printer = JsonFormat.printer().usingTypeRegistry(registry.typeRegistry())
      .preservingProtoFieldNames().omittingInsignificantWhitespace();
  private final JsonFormat.Parser parser = JsonFormat.parser().usingTypeRegistry(registry.typeRegistry());
  private final ObjectMapper mapper;
  private final ObjectMapper plain = new ObjectMapper();
  /** Stored text → message; weighed by text length, {@value #STORED_CACHE_CHARS} characters at most. */
  private final Cache<StoredText, Message> stored = Caffeine.newBuilder()
      .maximumWeight(STORED_CACHE_CHARS).<StoredText, Message>weigher((k, v) -> k.text().length() + 64).build();

  ResourceCodec() {
    mapper = JsonMapper.builder().build();
    mapper.getFactory().setStreamReadConstraints(StreamReadConstraints.builder()
        .maxNestingDepth(MAX_NESTING_DEPTH).maxStringLength(1_000_000).maxNumberLength(100).build());
  }

  /** The registry of typed_config types, shared with the translator. */
  ExtensionRegistry registry() {
    return registry;
  }

  /**
   * Parses a request body.
   *
   * @throws ConfigException with the edge's words when it is not a resource of the type
   */
  Message parse(String text, BootstrapLoader.Format format, ResourceType type) throws ConfigException {
    if (text.isBlank()) {
      throw new ConfigException("", "the request body is empty");
    }
    if (format == BootstrapLoader.Format.JSON) {
      try {
        mapper.readTree(text); // bounded nesting before the edge's reader, which allows more
      } catch (JsonProcessingException e) {
        throw new ConfigException("", "invalid JSON: " + e.getOriginalMessage());
      }
    }
    return BootstrapLoader.parseResource(text, format, type.prototype());
  }

  /** The canonical JSON text of a resource. */
  String print(Message resource) {
    try {
      return printer.print(resource);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("cannot print a parsed " + resource.getDescriptorForType().getName(), e);
    }
  }

  /**
   * Reads canonical JSON central stored. Messages are immutable, and the same stored text is read
   * again for every edge it reaches on every push, so what was read is kept (bounded by text size).
   */
  Message parseStored(String text, ResourceType type) {
    return stored.get(new StoredText(type, text), k -> readStored(k.text(), k.type()));
  }

  private record StoredText(ResourceType type, String text) {}

  private Message readStored(String text, ResourceType type) {
    Message.Builder builder = type.prototype().newBuilderForType();
    try {
      parser.merge(text, builder);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("stored " + type.jsonName() + " resource does not read back", e);
    }
    return builder.build();
  }

  /** Canonical JSON as a tree, for replies. */
  JsonNode tree(String text) {
    try {
      return plain.readTree(text);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
