package io.spillway.edge.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Struct;
import com.google.protobuf.util.JsonFormat;
import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Reads an Envoy v3 {@link Bootstrap} from YAML or JSON with Envoy's generated protos.
 *
 * <p>YAML is read into a JSON tree ({@link YamlTreeReader} keeps plain scalars as written); the tree is checked and brought to protobuf's canonical JSON
 * mapping by {@link ProtoJsonNormalizer} (which accepts Envoy's lenient forms and names the path of
 * anything wrong), then parsed by protobuf's {@code JsonFormat} with the {@link ExtensionRegistry}'s
 * types. Unknown fields are errors, never ignored. Both snake_case and lowerCamelCase field names
 * are accepted. Environment variables are not substituted.
 *
 * <p>Loading only parses; {@link ConfigTranslator} decides what the edge supports.
 */
public final class BootstrapLoader {

  /** The text formats of a bootstrap. */
  public enum Format {
    YAML,
    JSON;

    /** The format Envoy infers from a file name: {@code .yaml}/{@code .yml} or {@code .json}. */
    public static Format ofFileName(String fileName) throws ConfigException {
      String lower = fileName.toLowerCase(Locale.ROOT);
      if (lower.endsWith(".yaml") || lower.endsWith(".yml")) {
        return YAML;
      }
      if (lower.endsWith(".json")) {
        return JSON;
      }
      throw new ConfigException("", fileName + ": unknown bootstrap format (the file name must end in .yaml, .yml"
          + " or .json)");
    }
  }

  private static final JsonMapper JSON_MAPPER = JsonMapper.builder()
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
      .build();

  private BootstrapLoader() {}

  /** Reads {@code file}, choosing the format by its extension. */
  public static Bootstrap load(Path file) throws ConfigException {
    return load(file, ExtensionRegistry.standard());
  }

  /** Reads {@code file} with the types of {@code registry}. */
  public static Bootstrap load(Path file, ExtensionRegistry registry) throws ConfigException {
    Format format = Format.ofFileName(String.valueOf(file.getFileName()));
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ConfigException("", "cannot read bootstrap " + file + ": " + FileProblems.describe(e), e);
    }
    return parse(text, format, registry);
  }

  /** Parses bootstrap text. */
  public static Bootstrap parse(String text, Format format) throws ConfigException {
    return parse(text, format, ExtensionRegistry.standard());
  }

  /** Parses bootstrap text with the types of {@code registry}. */
  public static Bootstrap parse(String text, Format format, ExtensionRegistry registry) throws ConfigException {
    return (Bootstrap) fromTree(readTree(text, format), Bootstrap.getDefaultInstance(), FieldPath.ROOT, registry,
        "bootstrap");
  }

  /**
   * Parses one xDS resource (a Cluster, Listener, RouteConfiguration, ClusterLoadAssignment…) from
   * YAML or JSON with the bootstrap's leniencies; {@code prototype} names the type.
   */
  @SuppressWarnings("unchecked")
  public static <T extends Message> T parseResource(String text, Format format, T prototype) throws ConfigException {
    return (T) fromTree(readTree(text, format), prototype, FieldPath.ROOT, ExtensionRegistry.standard(),
        prototype.getDescriptorForType().getName());
  }

  /**
   * Reads a {@code google.protobuf.Struct} (a TypedStruct's value) as a message of
   * {@code prototype}'s type, with the loader's leniencies; errors name fields under {@code path}.
   */
  static Message fromStruct(Struct struct, Message prototype, FieldPath path, ExtensionRegistry registry)
      throws ConfigException {
    JsonNode tree;
    try {
      tree = JSON_MAPPER.readTree(JsonFormat.printer().print(struct));
    } catch (IOException e) {
      throw new ConfigException(path, "cannot read the Struct: " + e.getMessage(), e);
    }
    return fromTree(tree, prototype, path, registry, prototype.getDescriptorForType().getName());
  }

  private static Message fromTree(JsonNode tree, Message prototype, FieldPath path, ExtensionRegistry registry,
      String what) throws ConfigException {
    JsonNode canonical = new ProtoJsonNormalizer(registry).normalize(tree, prototype.getDescriptorForType(), path);
    Message.Builder builder = prototype.newBuilderForType();
    try {
      JsonFormat.parser().usingTypeRegistry(registry.typeRegistry()).merge(canonical.toString(), builder);
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      // The normalizer rejects nearly everything protobuf would, with a path; this is the rest.
      throw new ConfigException(path, "invalid " + what + ": " + e.getMessage(), e);
    }
    return builder.build();
  }

  private static JsonNode readTree(String text, Format format) throws ConfigException {
    try {
      return switch (format) {
        case YAML -> YamlTreeReader.read(text);
        case JSON -> JSON_MAPPER.readTree(text);
      };
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
      throw new ConfigException("", "invalid " + format + where + ": " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new ConfigException("", "invalid " + format + ": " + e.getMessage(), e);
    }
  }
}
