package io.spillway.edge.config;

import io.envoyproxy.envoy.config.core.v3.DataSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Envoy's {@code DataSource} for TLS material: {@code filename} (read when the configuration is
 * loaded, as Envoy does), {@code inline_string}, {@code inline_bytes} or {@code
 * environment_variable} (the variable's value, read when the configuration is loaded; unset or
 * empty is an error, as in Envoy). {@code watched_directory} is refused: material is not reloaded
 * when files change.
 */
final class DataSources {
  private static final SupportedFields DATA_SOURCE = SupportedFields.of(DataSource.getDescriptor(),
      "filename", "inline_string", "inline_bytes", "environment_variable");

  private final Map<String, String> environment;

  /** @param environment the process environment ({@code System.getenv()}), injected for tests */
  DataSources(Map<String, String> environment) {
    this.environment = Map.copyOf(environment);
  }

  /** Reading the process environment. */
  static DataSources system() {
    return new DataSources(System.getenv());
  }

  /** The bytes of a required DataSource field; {@code has} says whether the field is set. */
  PemData read(boolean has, DataSource source, FieldPath path) throws ConfigException {
    if (!has) {
      throw new ConfigException(path, path.text().substring(path.text().lastIndexOf('.') + 1) + " is required");
    }
    return read(source, path);
  }

  PemData read(DataSource source, FieldPath path) throws ConfigException {
    DATA_SOURCE.check(source, path);
    return switch (source.getSpecifierCase()) {
      case FILENAME -> {
        if (source.getFilename().isEmpty()) {
          throw new ConfigException(path.field("filename"), "filename must not be empty");
        }
        try {
          yield new PemData("filename " + source.getFilename(), Files.readAllBytes(Path.of(source.getFilename())));
        } catch (IOException | RuntimeException e) {
          throw new ConfigException(path.field("filename"), "cannot read " + source.getFilename() + ": "
              + FileProblems.describe(e));
        }
      }
      case INLINE_STRING -> nonEmpty(new PemData("inline_string",
          source.getInlineString().getBytes(StandardCharsets.UTF_8)), source.getInlineString().isEmpty(),
          path.field("inline_string"));
      case INLINE_BYTES -> nonEmpty(new PemData("inline_bytes", source.getInlineBytes().toByteArray()),
          source.getInlineBytes().isEmpty(), path.field("inline_bytes"));
      case ENVIRONMENT_VARIABLE -> {
        String name = source.getEnvironmentVariable();
        if (name.isEmpty()) {
          throw new ConfigException(path.field("environment_variable"), "environment_variable must not be empty");
        }
        String value = environment.get(name);
        if (value == null || value.isEmpty()) {
          throw new ConfigException(path.field("environment_variable"), "environment variable " + name
              + " is not set or empty");
        }
        yield new PemData("environment_variable " + name, value.getBytes(StandardCharsets.UTF_8));
      }
      case SPECIFIER_NOT_SET -> throw new ConfigException(path,
          "one of filename, inline_string, inline_bytes or environment_variable is required");
    };
  }

  private static PemData nonEmpty(PemData data, boolean empty, FieldPath path) throws ConfigException {
    if (empty) {
      throw new ConfigException(path, "must not be empty");
    }
    return data;
  }
}
