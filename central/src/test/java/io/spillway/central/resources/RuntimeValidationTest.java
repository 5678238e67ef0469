package io.spillway.central.resources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Message;
import io.envoyproxy.envoy.service.runtime.v3.Runtime;
import io.spillway.edge.config.BootstrapLoader;
import io.spillway.edge.config.ConfigException;
import io.spillway.edge.config.XdsResourceTranslator;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Runtime layers (RTDS) are checked with the edge's own rules: a layer with a list, a null or an
 * empty object is refused with the message the edge's NACK would carry, naming the key's path.
 */
class RuntimeValidationTest {

  private static final String VALUE_RULE =
      "a runtime value is a string, number, boolean or fractional percent ({numerator, denominator}), not ";

  private final ResourceCodec codec = new ResourceCodec();
  private final ResourceValidator validator = new ResourceValidator(codec.registry());

  private Runtime parse(String name, String layer) throws Exception {
    return (Runtime) codec.parse(Fixtures.runtime(name, layer), BootstrapLoader.Format.YAML, ResourceType.RUNTIMES);
  }

  private Optional<String> check(String name, String layer) throws Exception {
    Message runtime = parse(name, layer);
    return validator.check(new ResourceSet(Map.of(ResourceType.RUNTIMES, Map.of(name, runtime))), ResourceType.RUNTIMES, name);
  }

  /** What the edge answers for the same resource: its translator's message, or empty when it takes it. */
  private Optional<String> edgeVerdict(String name, String layer) throws Exception {
    try {
      new XdsResourceTranslator(codec.registry()).runtimeLayer(parse(name, layer));
      return Optional.empty();
    } catch (ConfigException e) {
      return Optional.of(e.getMessage());
    }
  }

  @Test
  void valuesTheEdgeTakesPass() throws Exception {
    String layer = "{envoy: {resource_limits: {listener: {main: {connection_limit: 5}}}}, routing.shift: "
        + "{numerator: 25, denominator: TEN_THOUSAND}, name: blue, enabled: true, ratio: 0.5}";
    assertThat(check("ops", layer)).isEmpty();
    assertThat(edgeVerdict("ops", layer)).isEmpty();
    assertThat(check("ops", "{}")).as("an empty layer is no values, not a bad one").isEmpty();
  }

  @Test
  void aListIsRefusedNamingItsKey() throws Exception {
    assertThat(check("ops", "{envoy: {keys: [1, 2]}}")).hasValue("runtime \"ops\".layer.envoy.keys: " + VALUE_RULE + "list_value");
  }

  @Test
  void aNullIsRefusedNamingItsKey() throws Exception {
    assertThat(check("ops", "{a: {b: null}}")).hasValue("runtime \"ops\".layer.a.b: " + VALUE_RULE + "null_value");
  }

  @Test
  void anEmptyObjectIsRefusedNamingItsKey() throws Exception {
    assertThat(check("ops", "{a: {}}")).hasValue("runtime \"ops\".layer.a: an empty object is not a runtime value");
  }

  @Test
  void aBadFractionalPercentIsRefused() throws Exception {
    assertThat(check("ops", "{shift: {numerator: 5, denominator: THOUSAND}}"))
        .hasValue("runtime \"ops\".layer.shift.denominator: must be HUNDRED, TEN_THOUSAND or MILLION");
  }

  @Test
  void centralsMessageIsTheEdgesNack() throws Exception {
    for (String layer : new String[] {"{k: [x]}", "{k: null}", "{k: {}}", "{k: {numerator: -1}}"}) {
      assertThat(check("ops", layer)).as(layer).isPresent().isEqualTo(edgeVerdict("ops", layer));
    }
  }

  @Test
  void aFieldRuntimeDoesNotHaveIsRefusedWhenParsed() {
    assertThatThrownBy(() -> codec.parse("name: ops\nlayers: {a: 1}\n", BootstrapLoader.Format.YAML, ResourceType.RUNTIMES))
        .isInstanceOf(ConfigException.class).hasMessageContaining("layers");
  }
}
