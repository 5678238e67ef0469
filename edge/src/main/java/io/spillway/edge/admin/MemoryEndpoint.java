package io.spillway.edge.admin;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.netty.buffer.ByteBufAllocatorMetric;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryUsage;
import java.util.List;

/**
 * {@code /memory}: Envoy's {@code envoy.admin.v3.Memory} fields mapped onto the JVM, then the JVM's
 * own numbers. Every value is a byte count written as a JSON string, as Envoy writes its uint64s.
 *
 * <ul>
 *   <li>{@code allocated}: heap in use; {@code heap_size}: heap committed; {@code pageheap_free}:
 *       committed but unused heap; {@code pageheap_unmapped} and {@code total_thread_cache}: 0
 *       (the JVM has no such pools); {@code total_physical_bytes}: heap and non-heap committed plus
 *       the JDK's direct buffer capacity.
 *   <li>{@code heap_used}, {@code heap_committed}, {@code heap_max} ({@code -1} if undefined),
 *       {@code non_heap_used}, {@code direct_buffer_used}, {@code direct_buffer_capacity} (the
 *       {@code direct} buffer pool), {@code netty_pooled_direct_used} and
 *       {@code netty_pooled_heap_used} (the pooled allocator's arenas, which may hold direct memory
 *       the JDK's pool does not see).
 * </ul>
 */
final class MemoryEndpoint implements AdminEndpoint {
  private static final JsonFactory JSON = new JsonFactory();

  private final MemoryMXBean memory;
  private final BufferPoolMXBean directPool;
  private final ByteBufAllocatorMetric pooled;

  /** @param pooled the metric of the pooled allocator the edge's channels use */
  MemoryEndpoint(ByteBufAllocatorMetric pooled) {
    this.memory = ManagementFactory.getMemoryMXBean();
    this.directPool = direct(ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class));
    this.pooled = pooled;
  }

  private static BufferPoolMXBean direct(List<BufferPoolMXBean> pools) {
    for (BufferPoolMXBean pool : pools) {
      if (pool.getName().equals("direct")) {
        return pool;
      }
    }
    return null;
  }

  @Override
  public String help() {
    return "print current allocation/heap usage (JVM heap, direct and pooled buffer memory)";
  }

  @Override
  public boolean mutating() {
    return false;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    MemoryUsage heap = memory.getHeapMemoryUsage();
    MemoryUsage nonHeap = memory.getNonHeapMemoryUsage();
    long directUsed = directPool == null ? 0 : directPool.getMemoryUsed();
    long directCapacity = directPool == null ? 0 : directPool.getTotalCapacity();
    StringWriter text = new StringWriter();
    try (JsonGenerator json = JSON.createGenerator(text)) {
      json.writeStartObject();
      json.writeStringField("allocated", Long.toString(heap.getUsed()));
      json.writeStringField("heap_size", Long.toString(heap.getCommitted()));
      json.writeStringField("pageheap_unmapped", "0");
      json.writeStringField("pageheap_free", Long.toString(Math.max(0, heap.getCommitted() - heap.getUsed())));
      json.writeStringField("total_thread_cache", "0");
      json.writeStringField("total_physical_bytes",
          Long.toString(heap.getCommitted() + nonHeap.getCommitted() + Math.max(0, directCapacity)));
      json.writeStringField("heap_used", Long.toString(heap.getUsed()));
      json.writeStringField("heap_committed", Long.toString(heap.getCommitted()));
      json.writeStringField("heap_max", Long.toString(heap.getMax()));
      json.writeStringField("non_heap_used", Long.toString(nonHeap.getUsed()));
      json.writeStringField("direct_buffer_used", Long.toString(directUsed));
      json.writeStringField("direct_buffer_capacity", Long.toString(directCapacity));
      json.writeStringField("netty_pooled_direct_used", Long.toString(pooled.usedDirectMemory()));
      json.writeStringField("netty_pooled_heap_used", Long.toString(pooled.usedHeapMemory()));
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not throw
    }
    return AdminResponse.json(200, text + "\n");
  }
}
