package io.spillway.edge.filters.grpcweb;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.RecordingStream;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.upstream.Worker;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Both sides of one stream for the gRPC-Web filter: the project's recording stream (its text local
 * reply), plus a worker with an unpooled allocator, and a record of the body parts the filter
 * injects each way and of its calls to continue the response.
 */
final class BridgeStream extends RecordingStream implements EncoderFilterCallbacks {
  final Worker worker = new Worker(0, null, new SplittableRandom(1), null, UnpooledByteBufAllocator.DEFAULT, null);
  final List<ByteBuf> injectedRequest = new ArrayList<>();
  final List<ByteBuf> injectedResponse = new ArrayList<>();
  int continuedEncoding;

  BridgeStream(RequestHeaders request) {
    super(null, request, new StreamInfo(0, "127.0.0.1", false));
  }

  /** A POST to {@code path} with these fields (name, value, ...). */
  static RequestHeaders post(String path, String... nameValues) {
    HttpHeaders h = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    for (int i = 0; i < nameValues.length; i += 2) {
      h.add(nameValues[i], nameValues[i + 1]);
    }
    return new RequestHeaders("POST", "http", "api.example", path, h);
  }

  @Override
  public Worker worker() {
    return worker;
  }

  @Override
  public void injectDecodedData(ByteBuf data) {
    injectedRequest.add(data);
  }

  @Override
  public void injectEncodedData(ByteBuf data) {
    injectedResponse.add(data);
  }

  @Override
  public void continueEncoding() {
    continuedEncoding++;
  }

  /** What was injected into the request, joined, each part released. */
  byte[] takeRequest() {
    return take(injectedRequest);
  }

  /** What was injected into the response, joined, each part released. */
  byte[] takeResponse() {
    return take(injectedResponse);
  }

  private static byte[] take(List<ByteBuf> parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (ByteBuf b : parts) {
      out.writeBytes(io.netty.buffer.ByteBufUtil.getBytes(b));
      b.release();
    }
    parts.clear();
    return out.toByteArray();
  }
}
