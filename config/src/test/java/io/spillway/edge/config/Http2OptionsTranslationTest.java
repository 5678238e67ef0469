package io.spillway.edge.config;

import static io.spillway.edge.config.BootstrapYaml.HCM;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * {@code http2_protocol_options} on the connection manager and on clusters (typed options and the
 * deprecated cluster field): defaults, every supported field, Envoy's ranges and the rejected
 * fields, each named by its path.
 */
class Http2OptionsTranslationTest {

  private static final String TYPED_HTTP2 = "static_resources.clusters[0].typed_extension_protocol_options"
      + "[\"envoy.extensions.upstreams.http.v3.HttpProtocolOptions\"].explicit_http_config.http2_protocol_options";
  private static final String ALL_FIELDS = """
      hpack_table_size: 0
      max_concurrent_streams: 128
      initial_stream_window_size: 65536
      initial_connection_window_size: 1048576
      max_outbound_frames: 500
      max_outbound_control_frames: 50
      max_consecutive_inbound_frames_with_empty_payload: 3
      max_inbound_priority_frames_per_stream: 7
      max_inbound_window_update_frames_per_data_frame_sent: 2
      override_stream_error_on_invalid_http_message: true
      use_oghttp2_codec: true
      """;
  private static final Http2Options ALL_FIELDS_OPTIONS = new Http2Options(0, 128, OptionalInt.of(65536),
      OptionalInt.of(1048576), 500, 50, 3, 7, 2, true, false);

  private static Http2Options downstream(String http2Yaml) throws ConfigException {
    return BootstrapYaml.minimal().hcm("http2_protocol_options:\n" + http2Yaml.indent(2))
        .translate().listeners().get(0).hcm().http2();
  }

  private static BootstrapYaml typedCluster(String http2Yaml) {
    return BootstrapYaml.minimal().clusters("""
        - name: backend
          typed_extension_protocol_options:
            envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
              "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
              explicit_http_config:
                http2_protocol_options:
        %s""".formatted(http2Yaml.indent(10)));
  }

  @Test
  void downstreamDefaultsAreEnvoysWithAHundredStreams() throws ConfigException {
    Http2Options d = BootstrapYaml.minimal().translate().listeners().get(0).hcm().http2();

    assertThat(d).isEqualTo(Http2Options.DOWNSTREAM_DEFAULTS);
    assertThat(d).isEqualTo(new Http2Options(4096, 100, OptionalInt.empty(), OptionalInt.empty(), 10_000, 1_000, 1,
        100, 10, false, false));
    assertThat(downstream("{}")).isEqualTo(Http2Options.DOWNSTREAM_DEFAULTS);
  }

  @Test
  void upstreamDefaultsAreEnvoys() throws ConfigException {
    ClusterConfig c = typedCluster("{}").translate().clusters().get("backend");

    assertThat(c.protocol()).isEqualTo(ClusterConfig.UpstreamProtocol.HTTP2);
    assertThat(c.http2()).isEqualTo(Http2Options.UPSTREAM_DEFAULTS);
    assertThat(c.http2().maxConcurrentStreams()).isEqualTo(Integer.MAX_VALUE);
    assertThat(BootstrapYaml.minimal().translate().clusters().get("backend").http2())
        .as("an HTTP/1.1 cluster keeps the defaults").isEqualTo(Http2Options.UPSTREAM_DEFAULTS);
  }

  @Test
  void translatesEverySupportedFieldOnBothSides() throws ConfigException {
    assertThat(downstream(ALL_FIELDS)).isEqualTo(ALL_FIELDS_OPTIONS);
    assertThat(typedCluster(ALL_FIELDS).translate().clusters().get("backend").http2()).isEqualTo(ALL_FIELDS_OPTIONS);
    ClusterConfig deprecated = BootstrapYaml.minimal()
        .clusters("- name: backend\n  http2_protocol_options:\n" + ALL_FIELDS.indent(4))
        .translate().clusters().get("backend");
    assertThat(deprecated.protocol()).isEqualTo(ClusterConfig.UpstreamProtocol.HTTP2);
    assertThat(deprecated.http2()).isEqualTo(ALL_FIELDS_OPTIONS);
  }

  @Test
  void acceptsEnvoysExtremes() throws ConfigException {
    Http2Options o = downstream("""
        hpack_table_size: 4294967295
        max_concurrent_streams: 2147483647
        initial_stream_window_size: 2147483647
        initial_connection_window_size: 65535
        max_outbound_frames: 1
        max_outbound_control_frames: 1
        max_consecutive_inbound_frames_with_empty_payload: 4294967295
        max_inbound_priority_frames_per_stream: 0
        max_inbound_window_update_frames_per_data_frame_sent: 1
        """);

    assertThat(o).isEqualTo(new Http2Options(4294967295L, Integer.MAX_VALUE, OptionalInt.of(Integer.MAX_VALUE),
        OptionalInt.of(65535), 1, 1, Integer.MAX_VALUE, 0, 1, false, false));
    assertThat(downstream("max_consecutive_inbound_frames_with_empty_payload: 0")
        .maxConsecutiveInboundFramesWithEmptyPayload()).isZero();
  }

  @Test
  void rejectsValuesOutsideEnvoysRangesNamingTheField() {
    String h2 = HCM + ".http2_protocol_options.";
    BootstrapYaml.minimal().hcm("http2_protocol_options: {max_concurrent_streams: 0}")
        .rejects(h2 + "max_concurrent_streams: must be at least 1");
    BootstrapYaml.minimal().hcm("http2_protocol_options: {max_concurrent_streams: 2147483648}")
        .rejects(h2 + "max_concurrent_streams: 2147483648 is larger than the supported maximum 2147483647");
    BootstrapYaml.minimal().hcm("http2_protocol_options: {initial_stream_window_size: 65534}")
        .rejects(h2 + "initial_stream_window_size: must be at least 65535");
    BootstrapYaml.minimal().hcm("http2_protocol_options: {initial_stream_window_size: 2147483648}")
        .rejects(h2 + "initial_stream_window_size: 2147483648 is larger than the supported maximum 2147483647");
    BootstrapYaml.minimal().hcm("http2_protocol_options: {initial_connection_window_size: 1024}")
        .rejects(h2 + "initial_connection_window_size: must be at least 65535");
    BootstrapYaml.minimal().hcm("http2_protocol_options: {max_outbound_frames: 0}")
        .rejects(h2 + "max_outbound_frames: must be at least 1");
    BootstrapYaml.minimal().hcm("http2_protocol_options: {max_outbound_control_frames: 0}")
        .rejects(h2 + "max_outbound_control_frames: must be at least 1");
    BootstrapYaml.minimal().hcm("http2_protocol_options: {max_inbound_window_update_frames_per_data_frame_sent: 0}")
        .rejects(h2 + "max_inbound_window_update_frames_per_data_frame_sent: must be at least 1");
    typedCluster("{initial_connection_window_size: 65534}")
        .rejects(TYPED_HTTP2 + ".initial_connection_window_size: must be at least 65535");
    BootstrapYaml.minimal().clusters("- {name: backend, http2_protocol_options: {max_concurrent_streams: 0}}\n")
        .rejects("static_resources.clusters[0].http2_protocol_options.max_concurrent_streams: must be at least 1");
  }

  @Test
  void rejectsTheFieldsThatAreNotImplementedWithTheirPath() throws ConfigException {
    String h2 = HCM + ".http2_protocol_options.";
    BootstrapYaml.minimal().hcm("http2_protocol_options: {allow_metadata: true}")
        .rejects(h2 + "allow_metadata: allow_metadata is not supported");
    BootstrapYaml.minimal().hcm("http2_protocol_options: {connection_keepalive: {interval: 10s, timeout: 1s}}")
        .rejects(h2 + "connection_keepalive: connection_keepalive is not supported");
    BootstrapYaml.minimal().hcm("http2_protocol_options: {custom_settings_parameters: [{identifier: 9, value: 1}]}")
        .rejects(h2 + "custom_settings_parameters: custom_settings_parameters is not supported");
    BootstrapYaml.minimal().hcm("http2_protocol_options: {max_metadata_size: 1024}")
        .rejects(h2 + "max_metadata_size: max_metadata_size is not supported");
    typedCluster("{connection_keepalive: {interval: 10s, timeout: 1s}}")
        .rejects(TYPED_HTTP2 + ".connection_keepalive: connection_keepalive is not supported");
    BootstrapYaml.minimal().clusters("- {name: backend, http2_protocol_options: {allow_connect: true}}\n")
        .rejects("static_resources.clusters[0].http2_protocol_options.allow_connect: allow_connect is not supported"
            + " on a cluster: the edge does not send upgrades (WebSocket or other) to HTTP/2 upstreams");
    typedCluster("{allow_connect: true}")
        .rejects(TYPED_HTTP2 + ".allow_connect: allow_connect is not supported on a cluster: the edge does not send"
            + " upgrades (WebSocket or other) to HTTP/2 upstreams");
    // false is the proto default: not set, so not rejected.
    BootstrapYaml.minimal().hcm("http2_protocol_options: {allow_connect: false, allow_metadata: false}").translate();
  }

  @Test
  void allowConnectEnablesExtendedConnectDownstream() throws ConfigException {
    assertThat(downstream("allow_connect: true").allowConnect()).isTrue();
    assertThat(downstream("{}").allowConnect()).isFalse();
    assertThat(Http2Options.UPSTREAM_DEFAULTS.allowConnect()).isFalse();
  }

  @Test
  void streamErrorOnInvalidHttpMessageFollowsEnvoysPrecedence() throws ConfigException {
    assertThat(downstream("stream_error_on_invalid_http_messaging: true").streamErrorOnInvalidHttpMessage())
        .as("the deprecated field alone").isTrue();
    assertThat(BootstrapYaml.minimal().hcm("""
            stream_error_on_invalid_http_message: false
            http2_protocol_options: {stream_error_on_invalid_http_messaging: true}
            """).translate().listeners().get(0).hcm().http2().streamErrorOnInvalidHttpMessage())
        .as("the connection manager's field wins over the deprecated one").isFalse();
    assertThat(BootstrapYaml.minimal().hcm("stream_error_on_invalid_http_message: true")
            .translate().listeners().get(0).hcm().http2().streamErrorOnInvalidHttpMessage())
        .as("the connection manager's field without http2_protocol_options").isTrue();
    assertThat(BootstrapYaml.minimal().hcm("""
            stream_error_on_invalid_http_message: true
            http2_protocol_options: {override_stream_error_on_invalid_http_message: false}
            """).translate().listeners().get(0).hcm().http2().streamErrorOnInvalidHttpMessage())
        .as("the override wins over the connection manager's field").isFalse();
    assertThat(typedCluster("{stream_error_on_invalid_http_messaging: true}").translate().clusters().get("backend")
        .http2().streamErrorOnInvalidHttpMessage()).isTrue();
  }
}
