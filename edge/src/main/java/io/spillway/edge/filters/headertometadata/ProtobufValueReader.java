package io.spillway.edge.filters.headertometadata;

import io.spillway.edge.http.filter.MetadataValue;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a binary-serialized {@code google.protobuf.Value} (the header value of a
 * {@code PROTOBUF_VALUE} rule) from the wire format, as protobuf's {@code ParseFromString} does:
 * the last member of the {@code kind} oneof wins, unknown fields are skipped, strings must be
 * UTF-8, nesting stops at protobuf's default depth of 100. The hot path keeps no protobuf
 * runtime, hence this small reader of the six fields of {@code Value}, {@code Struct} and
 * {@code ListValue}.
 */
final class ProtobufValueReader {
  private static final int MAX_DEPTH = 100;
  private static final int VARINT = 0;
  private static final int FIXED64 = 1;
  private static final int LENGTH_DELIMITED = 2;
  private static final int FIXED32 = 5;

  private final byte[] data;
  private int pos;

  private ProtobufValueReader(byte[] data) {
    this.data = data;
  }

  /** The value {@code bytes} hold, or null when they are not a valid {@code Value}. */
  static MetadataValue read(byte[] bytes) {
    try {
      return new ProtobufValueReader(bytes).value(bytes.length, 0);
    } catch (Malformed e) {
      return null;
    }
  }

  /** Thrown on bytes that are no valid message; never escapes {@link #read}. */
  private static final class Malformed extends Exception {
    Malformed() {
      super(null, null, false, false);
    }
  }

  private MetadataValue value(int end, int depth) throws Malformed {
    if (depth > MAX_DEPTH) {
      throw new Malformed();
    }
    MetadataValue kind = MetadataValue.NullValue.INSTANCE; // a Value without kind reads as null
    while (pos < end) {
      long tag = varint(end);
      int field = (int) (tag >>> 3);
      int wire = (int) (tag & 7);
      if (field == 1 && wire == VARINT) {
        varint(end);
        kind = MetadataValue.NullValue.INSTANCE;
      } else if (field == 2 && wire == FIXED64) {
        kind = new MetadataValue.NumberValue(Double.longBitsToDouble(fixed64(end)));
      } else if (field == 3 && wire == LENGTH_DELIMITED) {
        int len = length(end);
        kind = new MetadataValue.StringValue(utf8(len));
      } else if (field == 4 && wire == VARINT) {
        kind = new MetadataValue.BoolValue(varint(end) != 0);
      } else if (field == 5 && wire == LENGTH_DELIMITED) {
        int len = length(end);
        kind = struct(pos + len, depth + 1);
      } else if (field == 6 && wire == LENGTH_DELIMITED) {
        int len = length(end);
        kind = list(pos + len, depth + 1);
      } else {
        skip(field, wire, end);
      }
    }
    return kind;
  }

  private MetadataValue struct(int end, int depth) throws Malformed {
    Map<String, MetadataValue> fields = new TreeMap<>();
    while (pos < end) {
      long tag = varint(end);
      if ((tag >>> 3) == 1 && (tag & 7) == LENGTH_DELIMITED) {
        int entryLength = length(end);
        int entryEnd = pos + entryLength;
        String key = "";
        MetadataValue v = MetadataValue.NullValue.INSTANCE;
        while (pos < entryEnd) {
          long t = varint(entryEnd);
          if ((t >>> 3) == 1 && (t & 7) == LENGTH_DELIMITED) {
            key = utf8(length(entryEnd));
          } else if ((t >>> 3) == 2 && (t & 7) == LENGTH_DELIMITED) {
            int len = length(entryEnd);
            v = value(pos + len, depth + 1);
          } else {
            skip((int) (t >>> 3), (int) (t & 7), entryEnd);
          }
        }
        fields.put(key, v);
      } else {
        skip((int) (tag >>> 3), (int) (tag & 7), end);
      }
    }
    return new MetadataValue.StructValue(fields);
  }

  private MetadataValue list(int end, int depth) throws Malformed {
    List<MetadataValue> values = new ArrayList<>();
    while (pos < end) {
      long tag = varint(end);
      if ((tag >>> 3) == 1 && (tag & 7) == LENGTH_DELIMITED) {
        int len = length(end);
        values.add(value(pos + len, depth + 1));
      } else {
        skip((int) (tag >>> 3), (int) (tag & 7), end);
      }
    }
    return new MetadataValue.ListValue(values);
  }

  private void skip(int field, int wire, int end) throws Malformed {
    if (field == 0) {
      throw new Malformed();
    }
    switch (wire) {
      case VARINT -> varint(end);
      case FIXED64 -> fixed64(end);
      case LENGTH_DELIMITED -> {
        int len = length(end);
        pos += len;
      }
      case FIXED32 -> {
        if (end - pos < 4) {
          throw new Malformed();
        }
        pos += 4;
      }
      default -> throw new Malformed(); // groups (deprecated) and invalid wire types
    }
  }

  private long varint(int end) throws Malformed {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= end) {
        throw new Malformed();
      }
      byte b = data[pos++];
      v |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        return v;
      }
    }
    throw new Malformed();
  }

  private long fixed64(int end) throws Malformed {
    if (end - pos < 8) {
      throw new Malformed();
    }
    long v = 0;
    for (int i = 7; i >= 0; i--) {
      v = (v << 8) | (data[pos + i] & 0xffL);
    }
    pos += 8;
    return v;
  }

  /** A length prefix that fits in what is left of the enclosing message. */
  private int length(int end) throws Malformed {
    long len = varint(end);
    if (len < 0 || len > end - pos) {
      throw new Malformed();
    }
    return (int) len;
  }

  private String utf8(int len) throws Malformed {
    try {
      String s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(data, pos, len)).toString();
      pos += len;
      return s;
    } catch (CharacterCodingException e) {
      throw new Malformed();
    }
  }
}
