package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.OriginServer;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * RING_HASH and MAGLEV clusters of three real origins on 127.0.0.1 behind routes with a header,
 * cookie (generated with a ttl) and query-parameter hash policy: requests with the same value
 * always reach the same origin, and different values spread over the origins.
 */
class HashLoadBalancingIT {
  private static final int USERS = 24;

  private final List<OriginServer> origins = new java.util.ArrayList<>();
  private EdgeHarness edge;

  @BeforeEach
  void start() throws Exception {
    for (String name : List.of("a", "b", "c")) {
      origins.add(OriginServer.start(name));
    }
    String routes = """
        - match: {prefix: /ring/header}
          route: {cluster: ring, hash_policy: [{header: {header_name: x-user}}]}
        - match: {prefix: /maglev/header}
          route: {cluster: maglev, hash_policy: [{header: {header_name: x-user}}]}
        - match: {prefix: /ring/query}
          route: {cluster: ring, hash_policy: [{query_parameter: {name: user}}]}
        - match: {prefix: /maglev/cookie}
          route:
            cluster: maglev
            hash_policy:
            - cookie: {name: session, ttl: 3600s, path: /}
              terminal: true
            - header: {header_name: x-ignored}
        """;
    edge = EdgeHarness.start(bootstrap(routes, cluster("ring", "RING_HASH") + "\n" + cluster("maglev", "MAGLEV")));
  }

  private String cluster(String name, String policy) {
    StringBuilder endpoints = new StringBuilder();
    for (OriginServer o : origins) {
      endpoints.append("      - endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: ")
          .append(o.port()).append("}}}\n");
    }
    return """
        - name: %s
          type: STATIC
          connect_timeout: 1s
          lb_policy: %s
          load_assignment:
            cluster_name: %s
            endpoints:
            - lb_endpoints:
        %s""".formatted(name, policy, name, endpoints.toString().stripTrailing());
  }

  @AfterEach
  void stop() {
    if (edge != null) {
      edge.close();
    }
    origins.forEach(OriginServer::close);
  }

  private static String origin(HttpResponse<String> r) {
    assertThat(r.statusCode()).isEqualTo(200);
    return r.headers().firstValue("x-origin").orElse("none");
  }

  /** Each user's requests all reach one origin; the users spread over at least two of the three. */
  private void sticks(String what, Request request) throws Exception {
    Map<String, String> originOf = new HashMap<>();
    for (int round = 0; round < 3; round++) {
      for (int u = 0; u < USERS; u++) {
        String user = "user-" + u;
        String got = origin(request.send(user));
        String first = originOf.putIfAbsent(user, got);
        assertThat(got).as(what + " " + user + " round " + round).isEqualTo(first == null ? got : first);
      }
    }
    Set<String> used = new HashSet<>(originOf.values());
    assertThat(used).as(what + " spreads").hasSizeGreaterThanOrEqualTo(2);
  }

  interface Request {
    HttpResponse<String> send(String user) throws Exception;
  }

  @Test
  void theSameHeaderReachesTheSameOrigin() throws Exception {
    sticks("ring header", u -> edge.get("/ring/header", "x-user", u));
    sticks("maglev header", u -> edge.get("/maglev/header", "x-user", u));
  }

  @Test
  void theSameQueryParameterReachesTheSameOrigin() throws Exception {
    sticks("ring query", u -> edge.get("/ring/query?x=1&user=" + u));
  }

  @Test
  void theSameCookieReachesTheSameOrigin() throws Exception {
    sticks("maglev cookie", u -> edge.get("/maglev/cookie", "cookie", "session=" + u));
  }

  @Test
  void aRequestWithoutTheCookieGetsOneThatKeepsItOnItsOrigin() throws Exception {
    HttpResponse<String> first = edge.get("/maglev/cookie");
    String setCookie = first.headers().firstValue("set-cookie").orElseThrow();
    assertThat(setCookie).matches("session=\"[0-9a-f]{16}\"; Max-Age=3600; Path=/; HttpOnly");
    String cookie = setCookie.substring(0, setCookie.indexOf(';'));
    for (int i = 0; i < 10; i++) {
      HttpResponse<String> again = edge.get("/maglev/cookie", "cookie", cookie, "x-ignored", "v" + i);
      assertThat(origin(again)).isEqualTo(origin(first));
      assertThat(again.headers().firstValue("set-cookie")).isEmpty();
    }
  }

  @Test
  void withoutAHashRequestsSpreadAtRandom() throws Exception {
    Set<String> used = new HashSet<>();
    for (int i = 0; i < 60 && used.size() < 3; i++) {
      used.add(origin(edge.get("/ring/header")));
    }
    assertThat(used).hasSize(3);
  }
}
