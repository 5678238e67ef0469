package io.spillway.bench.overload;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * A truly open-loop HTTP/1.1 load generator for the overload benchmark (bench/overload.sh).
 *
 * <p><b>Open loop, no coordinated omission.</b> Each stream sends at a constant rate: request i of
 * a stream is scheduled at {@code from + i / rate}, independent of how earlier requests fared. One
 * pacer thread walks the merged schedule and hands each request to a Netty event loop; if the
 * pacer or the event loop is late the request is sent late, but its latency is always measured
 * from its <em>scheduled</em> time, so a stalled server (or a stalled generator) shows up as
 * latency instead of as missing samples. The send lag (scheduled → written) is reported too.
 *
 * <p><b>Connections.</b> HTTP/1.1 without pipelining, so one request in flight per connection:
 * each event loop keeps a pool of idle keep-alive connections and opens a new one whenever none
 * is idle, up to {@code --max-conns} in total. Only beyond that does a request wait inside the
 * generator (counted as {@code waited_for_conn}; its latency still runs from its scheduled time,
 * and if it waits past the timeout it is counted as {@code expired_unsent}). Netty was chosen over
 * {@code java.net.http.HttpClient}: it is already a dependency, costs far less CPU per request on
 * these 2 shared cores, and gives explicit control of the connection count and of closing a
 * connection whose request timed out.
 *
 * <p><b>Accounting.</b> Every scheduled request ends in exactly one outcome — 2xx, 503, other
 * status, timeout (sent, no answer within {@code --timeout-ms} of its scheduled time; the
 * connection is closed), error (connect failure or connection closed before the answer), or
 * expired_unsent — and the summary checks {@code scheduled == sum of outcomes} and prints
 * {@code "accounted": true|false}. Nothing is dropped silently.
 *
 * <p><b>Streams.</b> {@code --stream NAME,PATH,RATE,FROM_S,TO_S} (repeatable): RATE requests/s of
 * {@code GET PATH} between FROM_S and TO_S seconds after the start. The edge's routes map a path
 * prefix to an admission tier (route metadata {@code spillway.admission.tier}), so a stream per
 * tier gives a per-tier mix; several streams on one path give a step.
 *
 * <p><b>Sampling.</b> {@code --sample URL --sample-ms 50 --sample-out FILE} polls the edge's admin
 * {@code /overload} JSON every 50 ms and writes {@code t_ms limit in_flight refused...} lines (time
 * relative to the same start as the schedule); {@code --prom URL} adds the executor lag from
 * {@code /stats/prometheus} (every 20th sample). {@code --guard-sample URL --guard-ms 50 --guard-out FILE}
 * polls {@code /stats/prometheus} for the outbound guard's series per peer (breaker state, in
 * flight, waiting, refusals; {@link GuardSampler}). {@code --at T_S,URL} (repeatable) sends a GET to a
 * 127.0.0.1 URL T_S seconds after the start ({@link TimedGets}; e.g. a backend's run-time knob).
 *
 * <p>Output: a JSON summary on stdout (and {@code --out FILE}), per-second series with
 * {@code --series FILE}. Only 127.0.0.1 / localhost targets are accepted; the run is bounded by its
 * schedule plus the timeout plus 5 s.
 */
public final class OpenLoopLoad {

  static final AttributeKey<Req> REQ = AttributeKey.valueOf("openloop.req");

  /** One request; touched only on its event loop after the pacer hands it over. */
  static final class Req {
    final StreamStats stats;
    final long schedNanos;
    long sentNanos;
    boolean done;
    ScheduledFuture<?> timer;

    Req(StreamStats stats, long schedNanos) {
      this.stats = stats;
      this.schedNanos = schedNanos;
    }
  }

  private final String host;
  private final int port;
  private final long timeoutNanos;
  private final long sloNanos;
  private final int maxConns;
  private final List<StreamStats> streams = new ArrayList<>();
  private final AtomicInteger conns = new AtomicInteger();
  private final AtomicInteger peakConns = new AtomicInteger();
  private final AtomicLong connectsOpened = new AtomicLong();
  private final AtomicLong outstanding = new AtomicLong();
  private long t0;
  private int seconds;
  private CpuWatch cpu = new CpuWatch(new long[0]);
  private TimedGets timedGets = new TimedGets(List.of());
  private Loop[] loops;
  private String guardSample;
  private long guardMs;
  private Path guardOut;

  private OpenLoopLoad(String host, int port, long timeoutNanos, long sloNanos, int maxConns) {
    this.host = host;
    this.port = port;
    this.timeoutNanos = timeoutNanos;
    this.sloNanos = sloNanos;
    this.maxConns = maxConns;
  }

  /** The per-event-loop pool of idle connections and requests waiting for one. */
  final class Loop {
    final EventLoop loop;
    final Bootstrap bootstrap;
    final ArrayDeque<Channel> idle = new ArrayDeque<>();
    final ArrayDeque<Req> waiting = new ArrayDeque<>();

    Loop(EventLoop loop, boolean epoll) {
      this.loop = loop;
      this.bootstrap = new Bootstrap().group(loop)
          .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
          .option(ChannelOption.TCP_NODELAY, true)
          .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 2000)
          .handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
              ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(1 << 20), new ResponseHandler(Loop.this));
            }
          });
    }

    void dispatch(Req r) {
      long now = System.nanoTime();
      if (now - r.schedNanos >= timeoutNanos) {
        finish(r, Outcome.EXPIRED_UNSENT, 0, false, now);
        return;
      }
      Channel ch;
      while ((ch = idle.poll()) != null) {
        if (ch.isActive()) {
          send(ch, r);
          return;
        }
      }
      if (tryReserveConnection()) {
        connect(r);
      } else {
        r.stats.waitedForConn.incrementAndGet();
        waiting.add(r);
      }
    }

    void connect(Req r) {
      connectsOpened.incrementAndGet();
      ChannelFuture f = bootstrap.connect(host, port);
      f.channel().closeFuture().addListener(x -> onClosed(f.channel()));
      f.addListener(x -> {
        if (f.isSuccess()) {
          send(f.channel(), r);
        } else {
          finish(r, Outcome.ERROR, 0, false, System.nanoTime());
        }
      });
    }

    void send(Channel ch, Req r) {
      long now = System.nanoTime();
      if (now - r.schedNanos >= timeoutNanos) {
        finish(r, Outcome.EXPIRED_UNSENT, 0, false, now);
        release(ch);
        return;
      }
      ch.attr(REQ).set(r);
      r.sentNanos = now;
      r.stats.sent.incrementAndGet();
      record(r.stats.sendLag, now - r.schedNanos);
      DefaultFullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, r.stats.spec.path());
      req.headers().set(HttpHeaderNames.HOST, host);
      ch.writeAndFlush(req, ch.voidPromise());
      r.timer = loop.schedule(() -> {
        if (!r.done) {
          finish(r, Outcome.TIMEOUT, 0, false, System.nanoTime());
          ch.attr(REQ).set(null);
          ch.close();
        }
      }, r.schedNanos + timeoutNanos - now, TimeUnit.NANOSECONDS);
    }

    /** A connection is free again: serve a waiting request, else keep it idle. */
    void release(Channel ch) {
      if (!ch.isActive()) {
        return;
      }
      Req next = waiting.poll();
      if (next != null) {
        send(ch, next);
      } else {
        idle.add(ch);
      }
    }

    void onClosed(Channel ch) {
      conns.decrementAndGet();
      Req r = ch.attr(REQ).getAndSet(null);
      if (r != null && !r.done) {
        finish(r, Outcome.ERROR, 0, false, System.nanoTime());
      }
      // A slot under max-conns opened up: let a waiting request have it.
      Req next = waiting.poll();
      if (next != null) {
        dispatch(next);
      }
    }
  }

  enum Outcome { OK, REFUSED, OTHER, TIMEOUT, ERROR, EXPIRED_UNSENT }

  private EventLoop[] loops() {
    EventLoop[] out = new EventLoop[loops.length];
    for (int i = 0; i < loops.length; i++) {
      out[i] = loops[i].loop;
    }
    return out;
  }

  private boolean tryReserveConnection() {
    while (true) {
      int c = conns.get();
      if (c >= maxConns) {
        return false;
      }
      if (conns.compareAndSet(c, c + 1)) {
        peakConns.accumulateAndGet(c + 1, Math::max);
        return true;
      }
    }
  }

  final class ResponseHandler extends SimpleChannelInboundHandler<FullHttpResponse> {
    private final Loop loop;

    ResponseHandler(Loop loop) {
      this.loop = loop;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse resp) {
      long now = System.nanoTime();
      Req r = ctx.channel().attr(REQ).getAndSet(null);
      if (r == null || r.done) {
        ctx.close();   // an answer nobody waits for (after a timeout): do not reuse the connection
        return;
      }
      if (r.timer != null) {
        r.timer.cancel(false);
      }
      int status = resp.status().code();
      boolean retryAfter = resp.headers().contains(HttpHeaderNames.RETRY_AFTER);
      Outcome o = status / 100 == 2 ? Outcome.OK : status == 503 ? Outcome.REFUSED : Outcome.OTHER;
      finish(r, o, status, retryAfter, now);
      if (HttpUtil.isKeepAlive(resp)) {
        loop.release(ctx.channel());
      } else {
        ctx.close();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  private static void record(Histogram h, long nanos) {
    long micros = Math.max(1, Math.min(nanos / 1000, 120_000_000));
    synchronized (h) {
      h.recordValue(micros);
    }
  }

  private int secondOf(long nanos) {
    return (int) Math.max(0, Math.min(seconds - 1, (nanos - t0) / 1_000_000_000L));
  }

  void finish(Req r, Outcome o, int status, boolean retryAfter, long now) {
    if (r.done) {
      return;
    }
    r.done = true;
    outstanding.decrementAndGet();
    StreamStats s = r.stats;
    long lat = now - r.schedNanos;
    int sec = secondOf(now);
    switch (o) {
      case OK -> {
        s.ok.incrementAndGet();
        s.okPerSec.incrementAndGet(sec);
        if (lat <= sloNanos) {
          s.okInSlo.incrementAndGet();
          s.okSloPerSec.incrementAndGet(sec);
        }
        record(s.okLatency, lat);
      }
      case REFUSED -> {
        s.refused.incrementAndGet();
        s.refusedPerSec.incrementAndGet(sec);
        if (retryAfter) {
          s.refusedRetryAfter.incrementAndGet();
        }
        record(s.refusedLatency, lat);
        record(s.refusedFromSend, now - r.sentNanos);
      }
      case OTHER -> {
        s.other.incrementAndGet();
        s.failPerSec.incrementAndGet(sec);
        s.otherByStatus.computeIfAbsent(status, k -> new AtomicLong()).incrementAndGet();
      }
      case TIMEOUT -> {
        s.timeout.incrementAndGet();
        s.failPerSec.incrementAndGet(sec);
      }
      case ERROR -> {
        s.error.incrementAndGet();
        s.failPerSec.incrementAndGet(sec);
      }
      case EXPIRED_UNSENT -> {
        s.expiredUnsent.incrementAndGet();
        s.failPerSec.incrementAndGet(sec);
      }
    }
  }

  // ------------------------------------------------------------------ main

  private static void usage(String msg) {
    System.err.println("OpenLoopLoad: " + msg);
    System.err.println("usage: OpenLoopLoad --target http://127.0.0.1:PORT --stream NAME,PATH,RATE,FROM_S,TO_S [--stream ...]\n"
        + "  [--timeout-ms 2000] [--slo-ms 1000] [--max-conns 6000] [--threads 2]\n"
        + "  [--sample URL --sample-ms 50 --sample-out FILE] [--prom URL] [--out FILE] [--series FILE] [--label TEXT]\n"
        + "  [--cpu-pids PID,...] [--guard-sample PROM_URL --guard-ms 50 --guard-out FILE] [--at T_S,URL ...]");
    System.exit(2);
  }

  public static void main(String[] args) throws Exception {
    String target = null;
    List<StreamSpec> specs = new ArrayList<>();
    long timeoutMs = 2000;
    long sloMs = 1000;
    int maxConns = 6000;
    int threads = 2;
    String sample = null;
    String prom = null;
    long sampleMs = 50;
    Path sampleOut = null;
    Path out = null;
    Path series = null;
    String label = "";
    String cpuPidList = null;
    String guardSample = null;
    long guardMs = 50;
    Path guardOut = null;
    List<TimedGets.At> ats = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (i + 1 >= args.length) {
        usage("missing value for " + a);
      }
      String v = args[++i];
      switch (a) {
        case "--target" -> target = v;
        case "--stream" -> {
          String[] p = v.split(",");
          if (p.length != 5) {
            usage("--stream wants NAME,PATH,RATE,FROM_S,TO_S, got " + v);
          }
          specs.add(new StreamSpec(p[0], p[1], Double.parseDouble(p[2]), Double.parseDouble(p[3]), Double.parseDouble(p[4])));
        }
        case "--timeout-ms" -> timeoutMs = Long.parseLong(v);
        case "--slo-ms" -> sloMs = Long.parseLong(v);
        case "--max-conns" -> maxConns = Integer.parseInt(v);
        case "--threads" -> threads = Integer.parseInt(v);
        case "--sample" -> sample = v;
        case "--prom" -> prom = v;
        case "--sample-ms" -> sampleMs = Long.parseLong(v);
        case "--sample-out" -> sampleOut = Path.of(v);
        case "--out" -> out = Path.of(v);
        case "--series" -> series = Path.of(v);
        case "--label" -> label = v;
        case "--cpu-pids" -> cpuPidList = v;
        case "--guard-sample" -> guardSample = v;
        case "--guard-ms" -> guardMs = Long.parseLong(v);
        case "--guard-out" -> guardOut = Path.of(v);
        case "--at" -> {
          int c = v.indexOf(',');
          if (c < 0) {
            usage("--at wants T_S,URL, got " + v);
          }
          ats.add(new TimedGets.At(Double.parseDouble(v.substring(0, c)), v.substring(c + 1)));
        }
        default -> usage("unknown option " + a);
      }
    }
    if (target == null || specs.isEmpty()) {
      usage("--target and at least one --stream are required");
    }
    URI u = URI.create(target);
    if (!"127.0.0.1".equals(u.getHost()) && !"localhost".equals(u.getHost())) {
      usage("only 127.0.0.1 / localhost targets are allowed, not " + u.getHost());
    }
    List<String> urls = new ArrayList<>(java.util.Arrays.asList(sample, prom, guardSample));
    ats.forEach(x -> urls.add(x.url()));
    for (String s : urls) {
      if (s != null && !"127.0.0.1".equals(URI.create(s).getHost()) && !"localhost".equals(URI.create(s).getHost())) {
        usage("only 127.0.0.1 / localhost sample and --at URLs are allowed");
      }
    }
    for (TimedGets.At x : ats) {
      if (x.atS() < 0 || x.atS() > 600) {
        usage("--at: need 0 <= T_S <= 600");
      }
    }
    if (guardMs < 10 || guardMs > 10_000) {
      usage("guard-ms 10..10000");
    }
    double end = 0;
    long total = 0;
    for (StreamSpec s : specs) {
      if (s.rate() <= 0 || s.rate() > 100_000 || s.fromS() < 0 || s.toS() <= s.fromS() || s.toS() > 600) {
        usage("stream " + s.name() + ": need 0 < rate <= 100000 and 0 <= from < to <= 600");
      }
      end = Math.max(end, s.toS());
      total += s.count();
    }
    if (total > 5_000_000) {
      usage("more than 5,000,000 requests scheduled; refusing");
    }
    if (timeoutMs < 1 || timeoutMs > 60_000 || maxConns < 1 || maxConns > 60_000 || threads < 1 || threads > 16) {
      usage("timeout-ms 1..60000, max-conns 1..60000, threads 1..16");
    }
    OpenLoopLoad g = new OpenLoopLoad(u.getHost().equals("localhost") ? "127.0.0.1" : u.getHost(), u.getPort(),
        timeoutMs * 1_000_000, sloMs * 1_000_000, maxConns);
    g.seconds = (int) Math.ceil(end + timeoutMs / 1000.0) + 6;
    if (cpuPidList != null && !cpuPidList.isBlank()) {
      g.cpu = new CpuWatch(java.util.Arrays.stream(cpuPidList.split(",")).mapToLong(Long::parseLong).toArray());
    }
    for (StreamSpec s : specs) {
      g.streams.add(new StreamStats(s, g.seconds));
    }
    g.timedGets = new TimedGets(ats);
    g.guardSample = guardSample;
    g.guardMs = guardMs;
    g.guardOut = guardOut;
    g.run(end, threads, sample, prom, sampleMs, sampleOut, out, series, label);
  }

  private void run(double endS, int threads, String sample, String prom, long sampleMs, Path sampleOut, Path out,
      Path series, String label) throws Exception {
    boolean epoll = Epoll.isAvailable();
    MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(threads,
        epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    loops = new Loop[threads];
    for (int i = 0; i < threads; i++) {
      loops[i] = new Loop(group.next(), epoll);
    }
    Preflight.run(loops(), host, port, streams.get(0).spec.path(), 20);
    t0 = System.nanoTime() + 200_000_000L;   // a short lead so every thread is ready
    long endNanos = t0 + (long) (endS * 1e9);
    Thread samplerThread = null;
    Thread cpuThread = null;
    if (cpu.watching()) {
      cpuThread = cpu.sampler(endNanos + timeoutNanos + 1_000_000_000L);
      cpuThread.start();
    }
    if (sample != null && sampleOut != null) {
      samplerThread = EdgeSampler.thread(sample, prom, sampleMs, sampleOut, t0, endNanos + 1_000_000_000L);
      samplerThread.start();
    }
    Thread guardThread = null;
    if (guardSample != null && guardOut != null) {
      guardThread = GuardSampler.thread(guardSample, guardMs, guardOut, t0, endNanos + 1_000_000_000L);
      guardThread.start();
    }
    Thread atThread = null;
    if (timedGets.any()) {
      atThread = timedGets.thread(t0);
      atThread.start();
    }
    // The pacer: merge the streams' schedules, always sending the earliest due request next.
    int n = streams.size();
    long[] index = new long[n];
    long[] count = new long[n];
    for (int i = 0; i < n; i++) {
      count[i] = streams.get(i).spec.count();
    }
    long maxPacerLateNanos = 0;
    long dispatched = 0;
    while (true) {
      int best = -1;
      long bestT = Long.MAX_VALUE;
      for (int i = 0; i < n; i++) {
        if (index[i] < count[i]) {
          StreamSpec s = streams.get(i).spec;
          long t = t0 + (long) (s.fromS() * 1e9) + (long) (index[i] * 1e9 / s.rate());
          if (t < bestT) {
            bestT = t;
            best = i;
          }
        }
      }
      if (best < 0) {
        break;
      }
      long wait = bestT - System.nanoTime();
      if (wait > 20_000) {
        LockSupport.parkNanos(wait);
      }
      long late = System.nanoTime() - bestT;
      maxPacerLateNanos = Math.max(maxPacerLateNanos, late);
      index[best]++;
      StreamStats st = streams.get(best);
      st.scheduled.incrementAndGet();
      st.schedPerSec.incrementAndGet(secondOf(bestT));
      outstanding.incrementAndGet();
      Req r = new Req(st, bestT);
      Loop l = loops[(int) (dispatched++ % threads)];
      l.loop.execute(() -> l.dispatch(r));
    }
    // Every request ends by its timeout; wait for that (bounded), then report.
    long deadline = System.nanoTime() + timeoutNanos + 5_000_000_000L;
    while (outstanding.get() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    long stillOutstanding = outstanding.get();
    if (samplerThread != null) {
      samplerThread.interrupt();
      samplerThread.join(2000);
    }
    for (Thread th : new Thread[] {cpuThread, guardThread, atThread}) {
      if (th != null) {
        th.interrupt();
        th.join(2000);
      }
    }
    String json = summary(label, endS, maxPacerLateNanos, stillOutstanding);
    System.out.println(json);
    if (out != null) {
      Files.writeString(out, json + "\n");
    }
    if (series != null) {
      writeSeries(series);
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(3, TimeUnit.SECONDS);
  }

  private static String pct(Histogram h, double p) {
    synchronized (h) {
      return h.getTotalCount() == 0 ? "null" : String.format(Locale.ROOT, "%.3f", h.getValueAtPercentile(p) / 1000.0);
    }
  }

  private String summary(String label, double endS, long maxPacerLate, long stillOutstanding) {
    StringBuilder b = new StringBuilder();
    b.append("{\"label\":\"").append(label).append("\",\"target\":\"").append(host).append(':').append(port)
        .append("\",\"duration_s\":").append(endS)
        .append(",\"timeout_ms\":").append(timeoutNanos / 1_000_000)
        .append(",\"slo_ms\":").append(sloNanos / 1_000_000)
        .append(",\"max_conns\":").append(maxConns)
        .append(",\"peak_conns\":").append(peakConns.get())
        .append(",\"connects\":").append(connectsOpened.get())
        .append(String.format(Locale.ROOT, ",\"pacer_max_late_ms\":%.3f", maxPacerLate / 1e6))
        .append(",\"outstanding_at_end\":").append(stillOutstanding)
        .append(",\"streams\":[");
    boolean allAccounted = stillOutstanding == 0;
    for (int i = 0; i < streams.size(); i++) {
      StreamStats s = streams.get(i);
      long sum = s.ok.get() + s.refused.get() + s.other.get() + s.timeout.get() + s.error.get() + s.expiredUnsent.get();
      boolean acc = sum == s.scheduled.get() && s.scheduled.get() == s.spec.count();
      allAccounted &= acc;
      double window = s.spec.toS() - s.spec.fromS();
      Map<Integer, Long> other = new TreeMap<>();
      s.otherByStatus.forEach((k, v) -> other.put(k, v.get()));
      StringBuilder ob = new StringBuilder("{");
      other.forEach((k, v) -> ob.append(ob.length() > 1 ? "," : "").append('"').append(k).append("\":").append(v));
      ob.append('}');
      if (i > 0) {
        b.append(',');
      }
      b.append(String.format(Locale.ROOT,
          "{\"name\":\"%s\",\"path\":\"%s\",\"rate\":%.1f,\"from_s\":%.3f,\"to_s\":%.3f,"
              + "\"planned\":%d,\"scheduled\":%d,\"sent\":%d,\"completed\":%d,\"ok\":%d,\"ok_in_slo\":%d,\"refused_503\":%d,"
              + "\"refused_with_retry_after\":%d,\"other_status\":%d,\"other_by_status\":%s,\"timeout\":%d,\"error\":%d,"
              + "\"expired_unsent\":%d,\"waited_for_conn\":%d,\"accounted\":%s,"
              + "\"ok_rps\":%.1f,\"goodput_rps\":%.1f,\"goodput_steady_rps\":%.1f,\"success_ratio\":%.5f,"
              + "\"ok_p50_ms\":%s,\"ok_p90_ms\":%s,\"ok_p99_ms\":%s,\"ok_p999_ms\":%s,\"ok_max_ms\":%s,"
              + "\"refused_p50_ms\":%s,\"refused_p99_ms\":%s,\"refused_from_send_p50_ms\":%s,\"refused_from_send_p99_ms\":%s,"
              + "\"send_lag_p99_ms\":%s,\"send_lag_max_ms\":%s,"
              + "\"target_cpu_ms\":%.1f}",
          s.spec.name(), s.spec.path(), s.spec.rate(), s.spec.fromS(), s.spec.toS(),
          s.spec.count(), s.scheduled.get(), s.sent.get(), sum, s.ok.get(), s.okInSlo.get(), s.refused.get(),
          s.refusedRetryAfter.get(), s.other.get(), ob, s.timeout.get(), s.error.get(),
          s.expiredUnsent.get(), s.waitedForConn.get(), acc,
          s.ok.get() / window, s.okInSlo.get() / window, steadyGoodput(s),
          s.scheduled.get() == 0 ? 0.0 : (double) s.ok.get() / s.scheduled.get(),
          pct(s.okLatency, 50), pct(s.okLatency, 90), pct(s.okLatency, 99), pct(s.okLatency, 99.9), pct(s.okLatency, 100),
          pct(s.refusedLatency, 50), pct(s.refusedLatency, 99), pct(s.refusedFromSend, 50), pct(s.refusedFromSend, 99),
          pct(s.sendLag, 99), pct(s.sendLag, 100),
          !cpu.watching() ? -1.0 : cpu.millisBetween(t0 + (long) (s.spec.fromS() * 1e9), t0 + (long) (s.spec.toS() * 1e9))));
    }
    b.append("],\"timed_gets\":").append(timedGets.json());
    b.append(",\"accounted\":").append(allAccounted).append('}');
    return b.toString();
  }

  /**
   * Goodput in steady state: 2xx within the SLO by completion second, averaged over the whole
   * seconds of the stream's window without its first and last second (so neither the ramp-up nor
   * answers spilling past the window's end count). Falls back to the window average when the
   * window is shorter than 3 s.
   */
  private double steadyGoodput(StreamStats s) {
    int a = (int) Math.ceil(s.spec.fromS()) + 1;
    int b = (int) Math.floor(s.spec.toS()) - 1;
    if (b - a < 1) {
      return s.okInSlo.get() / (s.spec.toS() - s.spec.fromS());
    }
    long sum = 0;
    for (int sec = a; sec < b; sec++) {
      sum += s.okSloPerSec.get(sec);
    }
    return (double) sum / (b - a);
  }

  private void writeSeries(Path file) throws IOException {
    try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
      w.println("second\tstream\tscheduled\tok\tok_in_slo\trefused_503\tfailed");
      for (int sec = 0; sec < seconds; sec++) {
        for (StreamStats s : streams) {
          long sc = s.schedPerSec.get(sec);
          long ok = s.okPerSec.get(sec);
          long rf = s.refusedPerSec.get(sec);
          long f = s.failPerSec.get(sec);
          if (sc + ok + rf + f > 0) {
            w.printf("%d\t%s\t%d\t%d\t%d\t%d\t%d%n", sec, s.spec.name(), sc, ok, s.okSloPerSec.get(sec), rf, f);
          }
        }
      }
    }
  }
}
