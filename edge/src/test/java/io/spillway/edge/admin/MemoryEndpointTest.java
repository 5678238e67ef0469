package io.spillway.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

class MemoryEndpointTest {
  private final PooledByteBufAllocator allocator = new PooledByteBufAllocator(true);
  private final MemoryEndpoint endpoint = new MemoryEndpoint(allocator.metric());

  @Test
  void envoyFieldsThenJvmFieldsAsByteCountStrings() throws Exception {
    AdminResponse r = endpoint.handle(Requests.get("/memory"));

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).isEqualTo("application/json");
    JsonNode memory = new ObjectMapper().readTree(r.body());
    assertThat(fieldNames(memory)).containsExactly("allocated", "heap_size", "pageheap_unmapped", "pageheap_free",
        "total_thread_cache", "total_physical_bytes", "heap_used", "heap_committed", "heap_max", "non_heap_used",
        "direct_buffer_used", "direct_buffer_capacity", "netty_pooled_direct_used", "netty_pooled_heap_used");
    memory.forEach(v -> assertThat(v.isTextual()).isTrue());
    assertThat(memory.get("pageheap_unmapped").asText()).isEqualTo("0");
    assertThat(memory.get("total_thread_cache").asText()).isEqualTo("0");
    assertThat(memory.get("allocated").asLong()).isPositive();
    assertThat(memory.get("heap_size").asLong()).isGreaterThanOrEqualTo(memory.get("allocated").asLong() / 2);
    assertThat(memory.get("total_physical_bytes").asLong()).isGreaterThanOrEqualTo(memory.get("heap_size").asLong());
  }

  @Test
  void reportsThePooledAllocatorsArenas() throws Exception {
    ByteBuf direct = allocator.directBuffer(64 * 1024);
    ByteBuf heap = allocator.heapBuffer(64 * 1024);
    try {
      JsonNode memory = new ObjectMapper().readTree(endpoint.handle(Requests.get("/memory")).body());

      assertThat(memory.get("netty_pooled_direct_used").asLong()).isGreaterThanOrEqualTo(64 * 1024);
      assertThat(memory.get("netty_pooled_heap_used").asLong()).isGreaterThanOrEqualTo(64 * 1024);
    } finally {
      direct.release();
      heap.release();
    }
  }

  private static java.util.List<String> fieldNames(JsonNode node) {
    java.util.List<String> names = new java.util.ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
