package io.spillway.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Skips a class, with its reason, when the Redis at 127.0.0.1:6379 does not answer PING and CI is
 * not set; under CI the class runs (and fails in its set-up, see {@link #check()}).
 */
public final class RedisRequired implements ExecutionCondition {

  public static final String HOST = "127.0.0.1";
  public static final int PORT = 6379;
  static final String MISSING = "the rate limit tests need Redis at " + HOST + ":" + PORT
      + " (Debian package redis-server; .ci/run starts it when it is installed)";

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    if (answers()) {
      return ConditionEvaluationResult.enabled("Redis answers at " + HOST + ":" + PORT);
    }
    return underCi() ? ConditionEvaluationResult.enabled("CI is set: a missing Redis fails the test")
        : ConditionEvaluationResult.disabled("skipped: " + MISSING + "; with CI set this is a failure");
  }

  /** Fails when Redis does not answer (reached only under CI, or when it stopped since the condition ran). */
  public static void check() {
    if (!answers()) {
      throw new AssertionError((underCi() ? "CI is set, so a missing Redis is a failure: " : "") + MISSING);
    }
  }

  public static boolean answers() {
    return answers(PORT);
  }

  /** Whether a Redis on 127.0.0.1:{@code port} answers PING within a second. */
  public static boolean answers(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(HOST, port), 1000);
      socket.setSoTimeout(1000);
      OutputStream out = socket.getOutputStream();
      out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      byte[] reply = in.readNBytes(7);
      return new String(reply, StandardCharsets.US_ASCII).equals("+PONG\r\n");
    } catch (IOException e) {
      return false;
    }
  }

  static boolean underCi() {
    String ci = System.getenv("CI");
    return ci != null && !ci.isBlank();
  }
}
