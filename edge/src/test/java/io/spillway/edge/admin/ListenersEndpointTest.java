package io.spillway.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ListenersEndpointTest {
  private final FakeAdminContext context = new FakeAdminContext();
  private final ListenersEndpoint endpoint = new ListenersEndpoint(context::listeners);

  @AfterEach
  void close() {
    context.close();
  }

  @Test
  void textIsNameAndAddressPerListener() {
    AdminResponse r = endpoint.handle(Requests.get("/listeners"));

    assertThat(r.status()).isEqualTo(200);
    // Not bound in this test: the configured address.
    assertThat(r.bodyText()).isEqualTo("listener_0::0.0.0.0:10000\n");
  }

  @Test
  void jsonIsEnvoysListenerStatuses() throws Exception {
    AdminResponse r = endpoint.handle(Requests.get("/listeners?format=json"));

    assertThat(r.contentType()).isEqualTo("application/json");
    JsonNode status = new ObjectMapper().readTree(r.body()).get("listener_statuses").get(0);
    assertThat(status.get("name").asText()).isEqualTo("listener_0");
    JsonNode address = status.get("local_address").get("socket_address");
    assertThat(address.get("address").asText()).isEqualTo("0.0.0.0");
    assertThat(address.get("port_value").asInt()).isEqualTo(10000);
  }

  @Test
  void unknownFormatIsA400() {
    assertThat(endpoint.handle(Requests.get("/listeners?format=xml")).status()).isEqualTo(400);
  }
}
