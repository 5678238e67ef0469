package io.spillway.edge.filters.compressor;

import io.spillway.edge.config.CompressorConfig;
import io.spillway.edge.config.ExtensionRegistry;
import io.spillway.edge.config.HttpFilterConfig;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.FilterContext;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.router.RouteEntry;
import java.util.ArrayList;
import java.util.List;

/**
 * One {@code envoy.filters.http.compressor} entry of a connection manager (Envoy's
 * {@code CompressorFilterConfig}): its config, its stats, the chain's other compressors (for the
 * choice of an encoding) and one {@link CompressorFilter} per stream. A route's
 * {@code CompressorPerRoute} reaches the filter through the route table as it is.
 */
public final class CompressorFactory implements HttpFilterFactory {
  private final String name;
  private final CompressorConfig config;
  private final CompressorStats stats;
  private final List<EncodingChoice.Candidate> chain;
  private final java.util.function.Supplier<io.spillway.edge.runtime.RuntimeSnapshot> runtime;

  /** @param entry this filter's {@code http_filters} entry; its settings are a {@link CompressorConfig} */
  public CompressorFactory(HttpFilterConfig entry, FilterContext context) {
    this.name = entry.name();
    this.config = entry.settings(CompressorConfig.class);
    this.runtime = context.runtime()::snapshot;
    this.stats = CompressorStats.of(context.httpScope(), config.libraryName(), config.encoding(),
        config.response().statsUnderResponse());
    List<EncodingChoice.Candidate> compressors = new ArrayList<>();
    for (HttpFilterConfig e : context.config().httpFilters()) {
      if (e.extension().equals(ExtensionRegistry.COMPRESSOR)) {
        CompressorConfig c = e.settings(CompressorConfig.class);
        compressors.add(new EncodingChoice.Candidate(e.name(), c.encoding(), c.response().contentTypes(),
            c.chooseFirst()));
      }
    }
    this.chain = List.copyOf(compressors);
    // Native libraries load here, on the control path, rather than on a worker's first response; a
    // platform without one refuses the filter (and so the listener) with the reason.
    switch (config.library()) {
      case CompressorConfig.Zstd z -> ZstdCompressor.loadNative();
      case CompressorConfig.Brotli b -> BrotliCompressor.loadNative();
      case CompressorConfig.Gzip g -> { }
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void createFilters(FilterChainBuilder builder) {
    builder.addStreamFilter(new CompressorFilter(this));
  }

  /** A direction's {@code enabled} flag now: its runtime key's value, or its default. */
  boolean isEnabled(io.spillway.edge.config.RuntimeFlag flag) {
    return flag.runtimeKey().isEmpty() ? flag.defaultValue()
        : runtime.get().getBoolean(flag.runtimeKey(), flag.defaultValue());
  }

  CompressorConfig config() {
    return config;
  }

  CompressorStats stats() {
    return stats;
  }

  List<EncodingChoice.Candidate> chain() {
    return chain;
  }

  /** The route's {@code CompressorPerRoute}, or null. */
  CompressorConfig.PerRoute perRoute(RouteEntry route) {
    return route != null && route.filterConfig(name) instanceof CompressorConfig.PerRoute p ? p : null;
  }

  /** A new compressor for one body. */
  StreamCompressor newCompressor() {
    return switch (config.library()) {
      case CompressorConfig.Gzip g -> new GzipCompressor(g);
      case CompressorConfig.Zstd z -> new ZstdCompressor(z);
      case CompressorConfig.Brotli b -> new BrotliCompressor(b);
    };
  }
}
