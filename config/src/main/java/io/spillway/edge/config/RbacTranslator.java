package io.spillway.edge.config;

import io.envoyproxy.envoy.config.core.v3.CidrRange;
import io.envoyproxy.envoy.config.rbac.v3.Permission;
import io.envoyproxy.envoy.config.rbac.v3.Policy;
import io.envoyproxy.envoy.config.rbac.v3.Principal;
import io.envoyproxy.envoy.extensions.filters.http.rbac.v3.RBAC;
import io.envoyproxy.envoy.extensions.filters.http.rbac.v3.RBACPerRoute;
import io.envoyproxy.envoy.type.matcher.v3.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code envoy.filters.http.rbac} ({@code RBAC}) and its per-route {@code RBACPerRoute} into
 * {@link RbacConfig}, with Envoy's validation rules. Header and string matchers are the routes'
 * ({@link MatchTranslator}), compiled here once. Refused, each with its path: CEL conditions, the
 * xDS matcher API ({@code matcher}, {@code shadow_matcher}), per-rule stats, audit logging, and
 * the permission and principal kinds that need what the edge does not have — metadata, filter
 * state, the TLS server name, extensions.
 */
final class RbacTranslator {

  private static final SupportedFields FILTER = SupportedFields.of(RBAC.getDescriptor(), "rules",
      "rules_stat_prefix", "shadow_rules", "shadow_rules_stat_prefix");
  private static final SupportedFields PER_ROUTE = SupportedFields.of(RBACPerRoute.getDescriptor(), "rbac");
  private static final SupportedFields RULES = SupportedFields.of(
      io.envoyproxy.envoy.config.rbac.v3.RBAC.getDescriptor(), "action", "policies");
  private static final SupportedFields POLICY = SupportedFields.of(Policy.getDescriptor(), "permissions",
      "principals");
  private static final SupportedFields PATH = SupportedFields.of(PathMatcher.getDescriptor(), "path");
  private static final SupportedFields AUTHENTICATED = SupportedFields.of(Principal.Authenticated.getDescriptor(),
      "principal_name");
  private static final SupportedFields CIDR = SupportedFields.of(CidrRange.getDescriptor(), "address_prefix",
      "prefix_len");

  private static final String CEL = "CEL conditions are not supported (Spillway has no expression evaluator)";
  private static final String XDS_MATCHER = "the xDS matcher API is not supported: write the policies in ";
  private static final String NO_METADATA = "is not supported: RBAC does not match metadata (neither the"
      + " stream's dynamic metadata nor route metadata)";

  private RbacTranslator() {}

  static RbacConfig translate(RBAC r, FieldPath path) throws ConfigException {
    if (r.hasMatcher()) {
      throw new ConfigException(path.field("matcher"), XDS_MATCHER + "rules");
    }
    if (r.hasShadowMatcher()) {
      throw new ConfigException(path.field("shadow_matcher"), XDS_MATCHER + "shadow_rules");
    }
    if (r.getTrackPerRuleStats()) {
      throw new ConfigException(path.field("track_per_rule_stats"),
          "track_per_rule_stats is not supported: only the allowed/denied and shadow counters are kept");
    }
    FILTER.check(r, path);
    Optional<RbacConfig.Rules> rules = r.hasRules()
        ? Optional.of(rules(r.getRules(), path.field("rules"))) : Optional.empty();
    Optional<RbacConfig.Rules> shadow = r.hasShadowRules()
        ? Optional.of(rules(r.getShadowRules(), path.field("shadow_rules"))) : Optional.empty();
    return new RbacConfig(rules, statPrefix(r.getRulesStatPrefix(), path.field("rules_stat_prefix")), shadow,
        statPrefix(r.getShadowRulesStatPrefix(), path.field("shadow_rules_stat_prefix")));
  }

  /** {@code RBACPerRoute}: its {@code rbac} replaces the filter's; without one, the route is not checked. */
  static RbacConfig perRoute(RBACPerRoute p, FieldPath path) throws ConfigException {
    PER_ROUTE.check(p, path);
    return translate(p.getRbac(), path.field("rbac"));
  }

  private static String statPrefix(String prefix, FieldPath path) throws ConfigException {
    for (int i = 0; i < prefix.length(); i++) {
      char c = prefix.charAt(i);
      if (c <= ' ' || c == 0x7f) {
        throw new ConfigException(path, "must not contain whitespace or control characters");
      }
    }
    return prefix;
  }

  private static RbacConfig.Rules rules(io.envoyproxy.envoy.config.rbac.v3.RBAC r, FieldPath path)
      throws ConfigException {
    if (r.hasAuditLoggingOptions()) {
      throw new ConfigException(path.field("audit_logging_options"),
          "audit_logging_options is not supported (Envoy does not implement it either)");
    }
    RULES.check(r, path);
    RbacConfig.Action action = switch (r.getAction()) {
      case ALLOW -> RbacConfig.Action.ALLOW;
      case DENY -> RbacConfig.Action.DENY;
      case LOG -> RbacConfig.Action.LOG;
      default -> throw new ConfigException(path.field("action"),
          "unknown value " + r.getActionValue() + " (ALLOW, DENY or LOG)");
    };
    List<RbacConfig.Policy> policies = new ArrayList<>();
    // Envoy evaluates the policies in the lexicographic order of their names.
    for (Map.Entry<String, Policy> e : new TreeMap<>(r.getPoliciesMap()).entrySet()) {
      policies.add(policy(e.getKey(), e.getValue(), path.field("policies").key(e.getKey())));
    }
    return new RbacConfig.Rules(action, policies);
  }

  private static RbacConfig.Policy policy(String name, Policy p, FieldPath path) throws ConfigException {
    if (p.hasCondition()) {
      throw new ConfigException(path.field("condition"), CEL);
    }
    if (p.hasCheckedCondition()) {
      throw new ConfigException(path.field("checked_condition"), CEL);
    }
    POLICY.check(p, path);
    if (p.getPermissionsCount() == 0) {
      throw new ConfigException(path.field("permissions"), "at least one permission is required");
    }
    if (p.getPrincipalsCount() == 0) {
      throw new ConfigException(path.field("principals"), "at least one principal is required");
    }
    List<RbacConfig.Permission> permissions = new ArrayList<>();
    for (int i = 0; i < p.getPermissionsCount(); i++) {
      permissions.add(permission(p.getPermissions(i), path.field("permissions").index(i)));
    }
    List<RbacConfig.Principal> principals = new ArrayList<>();
    for (int i = 0; i < p.getPrincipalsCount(); i++) {
      principals.add(principal(p.getPrincipals(i), path.field("principals").index(i)));
    }
    return new RbacConfig.Policy(name, permissions, principals);
  }

  @SuppressWarnings("deprecation") // metadata: deprecated for sourced_metadata, refused either way
  static RbacConfig.Permission permission(Permission p, FieldPath path) throws ConfigException {
    return switch (p.getRuleCase()) {
      case AND_RULES -> new RbacConfig.Permission.And(permissions(p.getAndRules(), path.field("and_rules")));
      case OR_RULES -> new RbacConfig.Permission.Or(permissions(p.getOrRules(), path.field("or_rules")));
      case ANY -> {
        if (!p.getAny()) {
          throw new ConfigException(path.field("any"), "must be true");
        }
        yield new RbacConfig.Permission.Any();
      }
      case NOT_RULE -> new RbacConfig.Permission.Not(permission(p.getNotRule(), path.field("not_rule")));
      case HEADER -> new RbacConfig.Permission.Header(MatchTranslator.header(p.getHeader(), path.field("header")));
      case URL_PATH -> new RbacConfig.Permission.UrlPath(urlPath(p.getUrlPath(), path.field("url_path")));
      case DESTINATION_IP -> new RbacConfig.Permission.DestinationIp(
          range(p.getDestinationIp(), path.field("destination_ip")));
      case DESTINATION_PORT -> {
        if (Integer.compareUnsigned(p.getDestinationPort(), 65535) > 0) {
          throw new ConfigException(path.field("destination_port"),
              "must be at most 65535, not " + Integer.toUnsignedString(p.getDestinationPort()));
        }
        yield new RbacConfig.Permission.DestinationPort(p.getDestinationPort());
      }
      case DESTINATION_PORT_RANGE -> {
        int start = p.getDestinationPortRange().getStart();
        int end = p.getDestinationPortRange().getEnd();
        if (start < 0 || end > 65536 || start >= end) {
          throw new ConfigException(path.field("destination_port_range"),
              "must be a port range [start, end) with 0 <= start < end <= 65536, not [" + start + ", " + end + ")");
        }
        yield new RbacConfig.Permission.DestinationPortRange(start, end);
      }
      case METADATA -> throw new ConfigException(path.field("metadata"), "metadata " + NO_METADATA);
      case SOURCED_METADATA -> throw new ConfigException(path.field("sourced_metadata"),
          "sourced_metadata " + NO_METADATA);
      case REQUESTED_SERVER_NAME -> throw new ConfigException(path.field("requested_server_name"),
          "requested_server_name is not supported: the edge does not hand the TLS server name to HTTP filters");
      case MATCHER -> throw new ConfigException(path.field("matcher"),
          "matcher is not supported: Spillway has no RBAC matcher extensions");
      case URI_TEMPLATE -> throw new ConfigException(path.field("uri_template"),
          "uri_template is not supported: Spillway has no path match extensions");
      case RULE_NOT_SET -> throw new ConfigException(path, "a permission rule is required (one of and_rules,"
          + " or_rules, any, not_rule, header, url_path, destination_ip, destination_port, destination_port_range)");
    };
  }

  private static List<RbacConfig.Permission> permissions(Permission.Set set, FieldPath path) throws ConfigException {
    if (set.getRulesCount() == 0) {
      throw new ConfigException(path.field("rules"), "at least one rule is required");
    }
    List<RbacConfig.Permission> rules = new ArrayList<>();
    for (int i = 0; i < set.getRulesCount(); i++) {
      rules.add(permission(set.getRules(i), path.field("rules").index(i)));
    }
    return rules;
  }

  @SuppressWarnings("deprecation") // source_ip, metadata: deprecated, still read by Envoy
  static RbacConfig.Principal principal(Principal p, FieldPath path) throws ConfigException {
    return switch (p.getIdentifierCase()) {
      case AND_IDS -> new RbacConfig.Principal.And(principals(p.getAndIds(), path.field("and_ids")));
      case OR_IDS -> new RbacConfig.Principal.Or(principals(p.getOrIds(), path.field("or_ids")));
      case ANY -> {
        if (!p.getAny()) {
          throw new ConfigException(path.field("any"), "must be true");
        }
        yield new RbacConfig.Principal.Any();
      }
      case NOT_ID -> new RbacConfig.Principal.Not(principal(p.getNotId(), path.field("not_id")));
      case HEADER -> new RbacConfig.Principal.Header(MatchTranslator.header(p.getHeader(), path.field("header")));
      case URL_PATH -> new RbacConfig.Principal.UrlPath(urlPath(p.getUrlPath(), path.field("url_path")));
      case DIRECT_REMOTE_IP -> new RbacConfig.Principal.DirectRemoteIp(
          range(p.getDirectRemoteIp(), path.field("direct_remote_ip")));
      case REMOTE_IP -> new RbacConfig.Principal.RemoteIp(range(p.getRemoteIp(), path.field("remote_ip")));
      case SOURCE_IP -> new RbacConfig.Principal.SourceIp(range(p.getSourceIp(), path.field("source_ip")));
      case AUTHENTICATED -> authenticated(p.getAuthenticated(), path.field("authenticated"));
      case METADATA -> throw new ConfigException(path.field("metadata"), "metadata " + NO_METADATA);
      case SOURCED_METADATA -> throw new ConfigException(path.field("sourced_metadata"),
          "sourced_metadata " + NO_METADATA);
      case FILTER_STATE -> throw new ConfigException(path.field("filter_state"),
          "filter_state is not supported: the edge keeps no filter state for requests");
      case CUSTOM -> throw new ConfigException(path.field("custom"),
          "custom is not supported: Spillway has no RBAC principal extensions");
      case IDENTIFIER_NOT_SET -> throw new ConfigException(path, "a principal identifier is required (one of"
          + " and_ids, or_ids, any, not_id, header, url_path, direct_remote_ip, remote_ip, source_ip, authenticated)");
    };
  }

  private static RbacConfig.Principal authenticated(Principal.Authenticated a, FieldPath path)
      throws ConfigException {
    AUTHENTICATED.check(a, path);
    return new RbacConfig.Principal.Authenticated(a.hasPrincipalName()
        ? Optional.of(MatchTranslator.string(a.getPrincipalName(), path.field("principal_name")))
        : Optional.empty());
  }

  private static List<RbacConfig.Principal> principals(Principal.Set set, FieldPath path) throws ConfigException {
    if (set.getIdsCount() == 0) {
      throw new ConfigException(path.field("ids"), "at least one id is required");
    }
    List<RbacConfig.Principal> ids = new ArrayList<>();
    for (int i = 0; i < set.getIdsCount(); i++) {
      ids.add(principal(set.getIds(i), path.field("ids").index(i)));
    }
    return ids;
  }

  private static Route.StringMatch urlPath(PathMatcher m, FieldPath path) throws ConfigException {
    PATH.check(m, path);
    if (!m.hasPath()) {
      throw new ConfigException(path.field("path"), "path is required");
    }
    return MatchTranslator.string(m.getPath(), path.field("path"));
  }

  /**
   * A CidrRange. {@code prefix_len} is required: Envoy reads an unset one as 0, which matches every
   * address of the family — rarely what a policy naming one address means.
   */
  private static RbacConfig.IpRange range(CidrRange r, FieldPath path) throws ConfigException {
    CIDR.check(r, path);
    String literal = r.getAddressPrefix();
    byte[] bytes = FilterChainMatchTranslator.ipLiteral(literal, path.field("address_prefix"));
    int bits = bytes.length * 8;
    if (!r.hasPrefixLen()) {
      throw new ConfigException(path.field("prefix_len"), "prefix_len is required: Envoy reads an unset"
          + " prefix_len as 0, which matches every address; write " + bits + " for the one address or 0 for all");
    }
    int len = r.getPrefixLen().getValue();
    if (len < 0 || len > bits) {
      throw new ConfigException(path.field("prefix_len"), "must be at most " + bits + " for " + literal);
    }
    return new RbacConfig.IpRange(literal, len, bytes);
  }
}
