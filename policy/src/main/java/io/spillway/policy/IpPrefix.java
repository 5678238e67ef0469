package io.spillway.policy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.regex.Pattern;

/**
 * An IP address or CIDR prefix ({@code 10.0.0.0/8}, {@code 2001:db8::/32}, {@code 192.0.2.7}) as a
 * rate limit's {@code exempt} list holds it for the {@code clientAddress} key. Parsed without name
 * resolution: only literals are accepted.
 *
 * @param address the network address's bytes (4 or 16), bits past the prefix cleared
 * @param prefixLength the prefix length, 0 to 32 or 128
 */
public record IpPrefix(byte[] address, int prefixLength) {

  private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
  private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]{2,45}");

  /** Copies the bytes. */
  public IpPrefix {
    address = address.clone();
  }

  @Override
  public byte[] address() {
    return address.clone();
  }

  /**
   * The prefix {@code text} spells, or null when it is not an address or prefix literal.
   */
  public static IpPrefix parse(String text) {
    if (text == null) {
      return null;
    }
    int slash = text.indexOf('/');
    String host = slash < 0 ? text : text.substring(0, slash);
    byte[] bytes = literal(host);
    if (bytes == null) {
      return null;
    }
    int bits = bytes.length * 8;
    int length = bits;
    if (slash >= 0) {
      String len = text.substring(slash + 1);
      if (!len.matches("\\d{1,3}")) {
        return null;
      }
      length = Integer.parseInt(len);
      if (length > bits) {
        return null;
      }
    }
    for (int bit = length; bit < bits; bit++) {
      bytes[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
    }
    return new IpPrefix(bytes, length);
  }

  /** The bytes of an IPv4 or IPv6 literal, or null. */
  public static byte[] literal(String host) {
    var v4 = IPV4.matcher(host);
    if (v4.matches()) {
      byte[] bytes = new byte[4];
      for (int i = 0; i < 4; i++) {
        int octet = Integer.parseInt(v4.group(i + 1));
        if (octet > 255) {
          return null;
        }
        bytes[i] = (byte) octet;
      }
      return bytes;
    }
    if (host.indexOf(':') < 0 || !IPV6.matcher(host).matches()) {
      return null;
    }
    try {
      // A string with a colon is parsed as an IPv6 literal and never looked up.
      byte[] bytes = InetAddress.getByName(host).getAddress();
      return bytes.length == 16 ? bytes : null;
    } catch (UnknownHostException e) {
      return null;
    }
  }

  /** Whether {@code candidate} (4 or 16 bytes) lies in this prefix; a different family never does. */
  public boolean contains(byte[] candidate) {
    if (candidate == null || candidate.length != address.length) {
      return false;
    }
    int full = prefixLength / 8;
    for (int i = 0; i < full; i++) {
      if (candidate[i] != address[i]) {
        return false;
      }
    }
    int rest = prefixLength % 8;
    if (rest == 0) {
      return true;
    }
    int mask = (0xFF << (8 - rest)) & 0xFF;
    return (candidate[full] & mask) == (address[full] & 0xFF);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IpPrefix p && p.prefixLength == prefixLength && Arrays.equals(p.address, address);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(address) + prefixLength;
  }

  @Override
  public String toString() {
    return "IpPrefix[" + Arrays.toString(address) + "/" + prefixLength + "]";
  }
}
