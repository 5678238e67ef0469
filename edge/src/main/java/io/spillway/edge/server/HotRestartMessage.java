package io.spillway.edge.server;

import java.nio.charset.StandardCharsets;

/**
 * One request from a child edge to its parent over the hot restart socket: a line of US-ASCII,
 * {@code <version> <verb>[ <argument>]\n}, at most {@link #MAX_LENGTH} bytes. Each request has its
 * own connection; the parent answers and closes.
 *
 * <ul>
 *   <li>{@code VERSION}: the parent answers its {@link HotRestartOptions#VERSION} and a newline.
 *   <li>{@code PASS_LISTEN_SOCKET <host>:<port>}: the parent answers with the listening socket's
 *       file descriptor (SCM_RIGHTS), or closes without one when it has no listener there.
 *   <li>{@code DRAIN}: the parent closes its admin listener, answers {@code OK <epoch>\n}, stops
 *       accepting, drains and exits.
 * </ul>
 *
 * A request of another protocol version, other than {@code VERSION}, is refused
 * ({@code ERROR <reason>\n}).
 */
record HotRestartMessage(String version, Verb verb, String argument) {

  /** The longest request line, newline included. */
  static final int MAX_LENGTH = 256;

  enum Verb { VERSION, PASS_LISTEN_SOCKET, DRAIN }

  HotRestartMessage {
    if (verb == Verb.PASS_LISTEN_SOCKET && (argument == null || argument.isEmpty())) {
      throw new IllegalArgumentException("PASS_LISTEN_SOCKET needs an address");
    }
    if (verb != Verb.PASS_LISTEN_SOCKET && argument != null) {
      throw new IllegalArgumentException(verb + " takes no argument");
    }
  }

  static HotRestartMessage passListenSocket(String address) {
    return new HotRestartMessage(HotRestartOptions.VERSION, Verb.PASS_LISTEN_SOCKET, address);
  }

  static HotRestartMessage versionRequest() {
    return new HotRestartMessage(HotRestartOptions.VERSION, Verb.VERSION, null);
  }

  static HotRestartMessage drain() {
    return new HotRestartMessage(HotRestartOptions.VERSION, Verb.DRAIN, null);
  }

  /** The request line, newline included. */
  byte[] encode() {
    String line = version + " " + verb + (argument == null ? "" : " " + argument) + "\n";
    byte[] bytes = line.getBytes(StandardCharsets.US_ASCII);
    if (bytes.length > MAX_LENGTH) {
      throw new IllegalArgumentException("request longer than " + MAX_LENGTH + " bytes");
    }
    return bytes;
  }

  /**
   * Parses a request line without its newline.
   *
   * @throws IllegalArgumentException naming what is wrong with it
   */
  static HotRestartMessage decode(String line) {
    if (line.length() >= MAX_LENGTH) {
      throw new IllegalArgumentException("request longer than " + MAX_LENGTH + " bytes");
    }
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c < 0x21 && c != ' ' || c > 0x7e) {
        throw new IllegalArgumentException("request has a control or non-ASCII character at " + i);
      }
    }
    String[] parts = line.split(" ", -1);
    if (parts.length < 2 || parts.length > 3) {
      throw new IllegalArgumentException("request must be '<version> <verb>[ <argument>]'");
    }
    Verb verb;
    try {
      verb = Verb.valueOf(parts[1]);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("unknown verb '" + parts[1] + "'");
    }
    return new HotRestartMessage(parts[0], verb, parts.length == 3 ? parts[2] : null);
  }

  /** The address a listener is asked for by: {@code host:port} as configured. */
  static String address(String host, int port) {
    return host + ":" + port;
  }
}
