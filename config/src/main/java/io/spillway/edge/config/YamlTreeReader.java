package io.spillway.edge.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.composer.Composer;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Reads YAML into a JSON tree the way Envoy's YAML loader (yaml-cpp) reads it, without losing what
 * a plain scalar said. The document is composed by SnakeYAML into a node graph, then copied into
 * the tree:
 *
 * <ul>
 *   <li><b>Anchors and aliases</b> ({@code &name}, {@code *name}) are expanded: each alias becomes
 *       a copy of its anchored node. Expansion is bounded — at most {@value #MAX_ALIAS_NODES} nodes
 *       created by aliases and a depth of {@value #MAX_DEPTH} — so a small document cannot expand
 *       into a huge tree (the "billion laughs"); an alias that refers to a node containing it is
 *       rejected.
 *   <li><b>Keys tagged {@code !ignore}</b> are left out with their values, as Envoy leaves them
 *       out; they are where a file keeps the anchors it aliases elsewhere.
 *   <li><b>Merge keys</b> ({@code <<: *x}) are rejected: yaml-cpp does not implement them, so Envoy
 *       reads {@code <<} as a field of that name and refuses the file. Accepting them would load
 *       files Envoy refuses.
 *   <li><b>Duplicate keys</b> are errors (yaml-cpp keeps the last one silently; a second value
 *       for a key is nearly always a mistake).
 * </ul>
 *
 * <p>YAML 1.1 resolves {@code no}, {@code on} or {@code 010} to a boolean or a number, which would
 * turn a header value {@code no} into {@code "false"}. Here a plain scalar becomes a boolean node
 * only when it reads {@code true} or {@code false}, a number node only when the number prints back
 * as written, null for {@code ~}, {@code null} or nothing; any other scalar, and every quoted or
 * explicitly tagged one, stays text, which {@link ProtoJsonNormalizer} then reads by the field's
 * type (a bool field still takes {@code yes}/{@code no}/{@code on}/{@code off}, as Envoy does).
 *
 * <p>Errors are document-level {@link ConfigException}s whose rule starts
 * {@code invalid YAML at line L, column C:}.
 */
final class YamlTreeReader {

  /** Most nodes that expanding aliases may add to the tree. */
  static final int MAX_ALIAS_NODES = 100_000;
  /** Deepest nesting of mappings and sequences, before and after alias expansion. */
  static final int MAX_DEPTH = 200;

  private static final String IGNORE_TAG = "!ignore";

  private final Resolver resolver = new Resolver();
  /** Nodes copied at least once: reaching one again is an alias. */
  private final Set<Node> copied = Collections.newSetFromMap(new IdentityHashMap<>());
  /** Nodes being copied right now, to catch an alias inside its own anchor. */
  private final Set<Node> open = Collections.newSetFromMap(new IdentityHashMap<>());
  private int aliasDepth;
  private int aliasNodes;

  private YamlTreeReader() {}

  /** The document's tree; {@link MissingNode} for an empty document. */
  static JsonNode read(String text) throws ConfigException {
    LoaderOptions options = new LoaderOptions();
    options.setAllowRecursiveKeys(false);
    options.setMergeOnCompose(false);
    options.setNestingDepthLimit(MAX_DEPTH);
    // Aliases are bounded by the number of nodes they expand to (below), not by their count.
    options.setMaxAliasesForCollections(Integer.MAX_VALUE);
    try {
      Composer composer = new Composer(new ParserImpl(new StreamReader(text), options), new Resolver(), options);
      if (!composer.checkNode()) {
        return MissingNode.getInstance();
      }
      Node root = composer.getNode();
      if (composer.checkNode()) {
        Node next = composer.getNode();
        throw new ConfigException("", "invalid YAML: a bootstrap is one YAML document; another starts at line "
            + (next.getStartMark().getLine() + 1));
      }
      return new YamlTreeReader().copy(root, 0);
    } catch (MarkedYAMLException e) {
      Mark at = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
      String problem = e.getProblem() != null ? e.getProblem() : e.getMessage();
      throw new ConfigException("", "invalid YAML" + where(at) + ": " + problem.trim(), e);
    } catch (YAMLException e) {
      throw new ConfigException("", "invalid YAML: " + e.getMessage(), e);
    }
  }

  private JsonNode copy(Node node, int depth) throws ConfigException {
    boolean alias = !copied.add(node);
    if (alias && open.contains(node)) {
      throw error(node, "alias *" + node.getAnchor() + " refers to a node that contains it");
    }
    if (alias) {
      aliasDepth++;
    }
    open.add(node);
    try {
      if (aliasDepth > 0 && ++aliasNodes > MAX_ALIAS_NODES) {
        throw error(node, "aliases expand to more than " + MAX_ALIAS_NODES + " nodes");
      }
      return switch (node.getNodeId()) {
        case scalar -> scalar((ScalarNode) node);
        case sequence -> sequence((SequenceNode) node, depth + 1);
        case mapping -> mapping((MappingNode) node, depth + 1);
        default -> throw error(node, "unsupported YAML node " + node.getNodeId());
      };
    } finally {
      open.remove(node);
      if (alias) {
        aliasDepth--;
      }
    }
  }

  private JsonNode sequence(SequenceNode node, int depth) throws ConfigException {
    checkDepth(node, depth);
    ArrayNode array = JsonNodeFactory.instance.arrayNode();
    for (Node element : node.getValue()) {
      array.add(copy(element, depth));
    }
    return array;
  }

  private JsonNode mapping(MappingNode node, int depth) throws ConfigException {
    checkDepth(node, depth);
    ObjectNode object = JsonNodeFactory.instance.objectNode();
    Map<String, Mark> keys = new java.util.HashMap<>();
    for (NodeTuple entry : node.getValue()) {
      if (!(entry.getKeyNode() instanceof ScalarNode key)) {
        throw error(entry.getKeyNode(), "a key must be a plain value, not a list or a mapping");
      }
      if (key.getTag().getValue().equals(IGNORE_TAG)) {
        continue;
      }
      if (key.isPlain() && key.getTag().equals(Tag.MERGE)) {
        throw error(key, "merge keys (<<) are not supported: Envoy's YAML loader reads '<<' as a field name and"
            + " rejects it; alias a whole mapping (*name) or repeat the fields");
      }
      String name = key.getValue();
      Mark first = keys.putIfAbsent(name, key.getStartMark());
      if (first != null) {
        throw error(key, "duplicate key '" + name + "' (first at line " + (first.getLine() + 1) + ")");
      }
      object.set(name, copy(entry.getValueNode(), depth));
    }
    return object;
  }

  private void checkDepth(Node node, int depth) throws ConfigException {
    if (depth > MAX_DEPTH) {
      throw error(node, "nested deeper than " + MAX_DEPTH + " levels");
    }
  }

  private JsonNode scalar(ScalarNode node) {
    String text = node.getValue();
    if (!node.isPlain() || !node.getTag().equals(resolver.resolve(NodeId.scalar, text, true))) {
      return TextNode.valueOf(text); // quoted, or tagged explicitly (e.g. !!str 5)
    }
    if (node.getTag().equals(Tag.NULL)) {
      return NullNode.getInstance();
    }
    if (text.equals("true") || text.equals("false")) {
      return BooleanNode.valueOf(text.equals("true"));
    }
    if (node.getTag().equals(Tag.INT)) {
      return integer(text);
    }
    if (node.getTag().equals(Tag.FLOAT)) {
      return decimal(text);
    }
    return TextNode.valueOf(text);
  }

  private static JsonNode integer(String text) {
    try {
      BigInteger n = new BigInteger(text);
      return n.toString().equals(text) ? BigIntegerNode.valueOf(n) : TextNode.valueOf(text);
    } catch (NumberFormatException e) {
      return TextNode.valueOf(text); // 0x1F, 0o17, 1_000: kept as written
    }
  }

  private static JsonNode decimal(String text) {
    try {
      BigDecimal n = new BigDecimal(text);
      return n.toString().equals(text) ? DecimalNode.valueOf(n) : TextNode.valueOf(text);
    } catch (NumberFormatException e) {
      return TextNode.valueOf(text); // .inf, .nan: kept as written
    }
  }

  private static ConfigException error(Node node, String rule) {
    return new ConfigException("", "invalid YAML" + where(node.getStartMark()) + ": " + rule);
  }

  private static String where(Mark mark) {
    return mark == null ? "" : " at line " + (mark.getLine() + 1) + ", column " + (mark.getColumn() + 1);
  }
}
