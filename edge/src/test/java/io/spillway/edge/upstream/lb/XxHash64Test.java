package io.spillway.edge.upstream.lb;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class XxHash64Test {

  @Test
  void referenceVectors() {
    assertThat(XxHash64.hash("")).isEqualTo(0xEF46DB3751D8E999L);
    assertThat(XxHash64.hash("abc")).isEqualTo(0x44BC2CF5AD770999L);
    // 39 bytes: one 32-byte stripe, then the 8-byte, 4-byte and single-byte tails.
    assertThat(XxHash64.hash("Nobody inspects the spammish repetition")).isEqualTo(0xFBCEA83C8A378BF1L);
  }

  @Test
  void seedChangesTheHash() {
    assertThat(XxHash64.hash("127.0.0.1:80", 1)).isNotEqualTo(XxHash64.hash("127.0.0.1:80", 0));
  }
}
