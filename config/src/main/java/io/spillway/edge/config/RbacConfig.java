package io.spillway.edge.config;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code envoy.filters.http.rbac}: the enforced rules and the shadow rules, each optional, with
 * their stat prefixes. The same record is a route's or virtual host's {@code RBACPerRoute}: there
 * it replaces the filter's rules and shadow rules together (neither set: the route is not
 * checked, as in Envoy). Everything is compiled: regular expressions, address ranges, policies in
 * the order Envoy evaluates them (by name).
 *
 * @param rules the enforced rules, or empty (no enforcement)
 * @param rulesStatPrefix {@code rules_stat_prefix}, put between {@code rbac.} and {@code allowed}/{@code denied}
 * @param shadowRules the shadow rules, or empty
 * @param shadowRulesStatPrefix {@code shadow_rules_stat_prefix}, put before {@code shadow_allowed}/{@code shadow_denied}
 */
public record RbacConfig(Optional<Rules> rules, String rulesStatPrefix, Optional<Rules> shadowRules,
    String shadowRulesStatPrefix) implements HttpFilterConfig.Settings, RouteFilterConfig {

  public RbacConfig {
    Objects.requireNonNull(rules, "rules");
    Objects.requireNonNull(rulesStatPrefix, "rulesStatPrefix");
    Objects.requireNonNull(shadowRules, "shadowRules");
    Objects.requireNonNull(shadowRulesStatPrefix, "shadowRulesStatPrefix");
  }

  /** What a matching policy does ({@code envoy.config.rbac.v3.RBAC.Action}). */
  public enum Action {
    /** Allowed iff some policy matches. */
    ALLOW,
    /** Denied iff some policy matches. */
    DENY,
    /** Always allowed; whether a policy matched is only recorded. */
    LOG
  }

  /**
   * One {@code envoy.config.rbac.v3.RBAC}.
   *
   * @param policies sorted by name: the first that matches is the effective policy
   */
  public record Rules(Action action, List<Policy> policies) {
    public Rules {
      Objects.requireNonNull(action, "action");
      policies = List.copyOf(policies);
    }
  }

  /** A policy matches when one of its permissions and one of its principals match. */
  public record Policy(String name, List<Permission> permissions, List<Principal> principals) {
    public Policy {
      Objects.requireNonNull(name, "name");
      permissions = List.copyOf(permissions);
      principals = List.copyOf(principals);
    }
  }

  /** What the request does ({@code envoy.config.rbac.v3.Permission}, the kinds Spillway implements). */
  public sealed interface Permission {
    record Any() implements Permission {}

    record And(List<Permission> rules) implements Permission {
      public And {
        rules = List.copyOf(rules);
      }
    }

    record Or(List<Permission> rules) implements Permission {
      public Or {
        rules = List.copyOf(rules);
      }
    }

    record Not(Permission rule) implements Permission {}

    /** A request header (or pseudo-header: {@code :path} includes the query). */
    record Header(Route.HeaderMatch match) implements Permission {}

    /** The path without query and fragment. */
    record UrlPath(Route.StringMatch match) implements Permission {}

    /** The address the client connected to. */
    record DestinationIp(IpRange range) implements Permission {}

    record DestinationPort(int port) implements Permission {}

    /** {@code [start, end)}, as Envoy's Int32Range. */
    record DestinationPortRange(int start, int end) implements Permission {}
  }

  /** Who the client is ({@code envoy.config.rbac.v3.Principal}, the kinds Spillway implements). */
  public sealed interface Principal {
    record Any() implements Principal {}

    record And(List<Principal> ids) implements Principal {
      public And {
        ids = List.copyOf(ids);
      }
    }

    record Or(List<Principal> ids) implements Principal {
      public Or {
        ids = List.copyOf(ids);
      }
    }

    record Not(Principal id) implements Principal {}

    record Header(Route.HeaderMatch match) implements Principal {}

    record UrlPath(Route.StringMatch match) implements Principal {}

    /** The connection's peer address, always the physical peer. */
    record DirectRemoteIp(IpRange range) implements Principal {}

    /** The client address after {@code x-forwarded-for} handling ({@code xff_num_trusted_hops}). */
    record RemoteIp(IpRange range) implements Principal {}

    /** The deprecated {@code source_ip}: the connection's peer (Spillway has no PROXY protocol). */
    record SourceIp(IpRange range) implements Principal {}

    /**
     * A TLS connection; with {@code principalName}, one whose client certificate has a URI SAN, a DNS
     * SAN or (else) a subject that matches it, as Envoy's {@code authenticated}.
     */
    record Authenticated(Optional<Route.StringMatch> principalName) implements Principal {
      public Authenticated {
        Objects.requireNonNull(principalName, "principalName");
      }
    }
  }

  /**
   * An address range (Envoy's CidrRange), its bytes parsed once.
   *
   * @param address the configured IP literal
   * @param prefixLength how many leading bits must be equal
   * @param bytes the literal's 4 or 16 bytes
   */
  public record IpRange(String address, int prefixLength, byte[] bytes) {
    public IpRange {
      Objects.requireNonNull(address, "address");
      bytes = bytes.clone();
      if (prefixLength < 0 || prefixLength > bytes.length * 8) {
        throw new IllegalArgumentException("prefix length " + prefixLength + " for " + address);
      }
    }

    /** The address's bytes (a copy). */
    @Override
    public byte[] bytes() {
      return bytes.clone();
    }

    /** Whether {@code ip} (4 or 16 bytes; null never matches) is inside; another family never is. */
    public boolean contains(byte[] ip) {
      if (ip == null || ip.length != bytes.length) {
        return false;
      }
      int full = prefixLength >>> 3;
      for (int i = 0; i < full; i++) {
        if (ip[i] != bytes[i]) {
          return false;
        }
      }
      int rest = prefixLength & 7;
      if (rest == 0) {
        return true;
      }
      int mask = (0xFF << (8 - rest)) & 0xFF;
      return (ip[full] & mask) == (bytes[full] & mask);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof IpRange r && r.prefixLength == prefixLength && Arrays.equals(r.bytes, bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes) * 31 + prefixLength;
    }

    @Override
    public String toString() {
      return address + "/" + prefixLength;
    }
  }
}
