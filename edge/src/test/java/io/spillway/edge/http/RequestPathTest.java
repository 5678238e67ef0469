package io.spillway.edge.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Envoy's path rewrites, with the cases of Envoy's path_utility_test.cc and more. */
class RequestPathTest {

  static Stream<Arguments> normalizations() {
    return Stream.of(
        arguments("/a/./b", "/a/b"),
        arguments("/a/../b", "/b"),
        arguments("/../a", "/a"),                       // ".." above the root stays at the root
        arguments("/a/b/../../../../c", "/c"),
        arguments("/./a/b", "/a/b"),
        arguments("/a/.", "/a/"),
        arguments("/a/..", "/"),
        arguments("/a/b/..", "/a/"),
        arguments("a/b/../c", "/a/c"),                  // no leading slash: one is added
        arguments("/a/..\\c", "/c"),                    // a backslash is a slash
        arguments("/a\\b", "/a/b"),
        arguments("/a/b/%2E%2E/c", "/a/c"),             // %2e is a dot, either case
        arguments("/a/b/%2e%2e/c", "/a/c"),
        arguments("/a/b/%2E./c", "/a/c"),
        arguments("/a/b/%2E/c", "/a/b/c"),
        arguments("/%2e%2e", "/"),
        arguments("/a%2e", "/a."),
        arguments("/a/...", "/a/..."),                  // not a dot segment
        arguments("/a/..b", "/a/..b"),
        arguments("/%7E", "/~"),                        // unreserved characters are decoded
        arguments("/%7e%41%62%2D%5F%30", "/~Ab-_0"),
        arguments("/a%2Fb", "/a%2Fb"),                  // reserved ones are kept as sent
        arguments("/a/%2F%2f/c", "/a/%2F%2f/c"),        // hex case included
        arguments("/%5c%25", "/%5c%25"),
        arguments("/%c0%af", "/%c0%af"),
        arguments("/%zz", "/%zz"),                      // a '%' starting no escape is kept
        arguments("/%", "/%"),
        arguments("/a%2", "/a%2"),
        arguments("/%%30%30", "/%2500"),                // a nested escape cannot appear after decoding
        arguments("/a b", "/a%20b"),                    // characters a path may not hold are escaped
        arguments("/a\"b<c>", "/a%22b%3Cc%3E"),
        arguments("/a{b}|^`", "/a%7Bb%7D%7C%5E%60"),
        arguments("/\u00e9", "/%E9"),
        arguments("/a/../b?x=/../y&z=%7E", "/b?x=/../y&z=%7E"), // the query is untouched
        arguments("//a///b", "//a///b"),                // slashes are merge_slashes' business
        arguments("", "/"));
  }

  @ParameterizedTest
  @MethodSource("normalizations")
  void canonicalizesAsEnvoy(String in, String out) {
    assertThat(RequestPath.canonicalize(in)).isEqualTo(out);
  }

  @ParameterizedTest
  @ValueSource(strings = {"/xyz/.%00../abc", "/xyz/%00.%00./abc", "/xyz/AAAAA%%0000/abc", "/a\u0000b", "/%00"})
  void refusesPathsWithNul(String in) {
    assertThat(RequestPath.canonicalize(in)).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"/", "/xyz", "/x/y/z", "/A/B/C", "/index.html", "/.well-known/acme", "/a/b/",
      "/a?x=//y", "/a?x=/../y", "/a:b@c;d=e,f+g*h$i!j&k'l(m)n[o]", "/a%2Fb"})
  void returnsTheSameStringWhenNothingChanges(String in) {
    assertThat(RequestPath.canonicalize(in)).isSameAs(in);
    assertThat(RequestPath.mergeSlashes(in)).isSameAs(in);
    if (!in.contains("%")) {
      assertThat(RequestPath.unescapeSlashes(in)).isSameAs(in);
    }
  }

  static Stream<Arguments> merges() {
    return Stream.of(
        arguments("//a///b", "/a/b"),
        arguments("/a//b/c", "/a/b/c"),
        arguments("/a////b/c", "/a/b/c"),
        arguments("/a/b/c//", "/a/b/c/"),
        arguments("/a//b/c/", "/a/b/c/"),
        arguments("//a/?b", "/a/?b"),
        arguments("/a//b?", "/a/b?"),
        arguments("/a//b?a=///c", "/a/b?a=///c"),       // the query is untouched
        arguments("a//b/c", "a/b/c"),
        arguments("//", "//"));                         // Envoy keeps the leading and the trailing slash
  }

  @ParameterizedTest
  @MethodSource("merges")
  void mergesSlashesAsEnvoy(String in, String out) {
    assertThat(RequestPath.mergeSlashes(in)).isEqualTo(out);
  }

  static Stream<Arguments> unescapes() {
    return Stream.of(
        arguments("/a%2Fb", "/a/b"),
        arguments("%2f%2F", "//"),
        arguments("/a%2Fb%2fc/", "/a/b/c/"),
        arguments("/a%5Cb%5cc", "/a\\b\\c"),
        arguments("/%%2F", "/%/"),
        arguments("/a%2F?x=%2F", "/a/?x=%2F"));         // the query is untouched
  }

  @ParameterizedTest
  @MethodSource("unescapes")
  void unescapesSlashesAsEnvoy(String in, String out) {
    assertThat(RequestPath.unescapeSlashes(in)).isEqualTo(out);
  }

  @ParameterizedTest
  @ValueSource(strings = {"/a/b", "%2b", "%2", "%", "/a%2", "/a?x=%2F", "/a%5d"})
  void leavesPathsWithoutEscapedSlashesAlone(String in) {
    assertThat(RequestPath.unescapeSlashes(in)).isSameAs(in);
  }

  @Test
  void aCharacterBeyondOneByteIsEscapedAsUtf8() {
    assertThat(RequestPath.canonicalize("/\u20ac")).isEqualTo("/%E2%82%AC");
  }
}
