package io.spillway.edge.admin;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import java.util.List;
import java.util.Map;

/**
 * Replaces secrets in a configuration message with {@code [redacted]} before {@code /config_dump}
 * shows it, walking every field, map entry and {@code Any} (opened with the type registry).
 *
 * <p>What is secret is what Envoy's protos mark {@code (udpa.annotations.sensitive)} (or xDS's
 * equivalent): a TLS certificate's {@code private_key}, {@code pkcs12} and {@code password}, TLS
 * session ticket {@code keys}, generic secrets. Under such a field every string and bytes value is
 * redacted and other scalars are cleared, except that a {@code DataSource} keeps its
 * {@code filename} (a path is not a secret and tells the operator where the key comes from) while
 * its {@code inline_string}, {@code inline_bytes} and {@code environment_variable} are redacted.
 * gRPC {@code initial_metadata} values (credentials, usually) are redacted too, and so is a jwt_authn
 * provider's {@code local_jwks} (its keys may be HMAC secrets), though Envoy does not mark it.
 */
final class SecretRedactor {
  static final String REDACTED = "[redacted]";
  private static final String DATA_SOURCE = "envoy.config.core.v3.DataSource";
  private static final String HEADER_VALUE = "envoy.config.core.v3.HeaderValue";

  private final JsonFormat.TypeRegistry types;

  /** @param types resolves the messages inside {@code Any} fields; one it does not know is kept as is */
  SecretRedactor(JsonFormat.TypeRegistry types) {
    this.types = types;
  }

  /** A copy of {@code message} with its secrets redacted. */
  @SuppressWarnings("unchecked")
  <T extends Message> T redact(T message) {
    return (T) redact(message, false);
  }

  private Message redact(Message message, boolean sensitive) {
    if (message instanceof Any any) {
      return redactAny(any, sensitive);
    }
    Descriptor type = message.getDescriptorForType();
    Message.Builder b = message.toBuilder();
    if (sensitive && type.getFullName().equals(DATA_SOURCE)) {
      redactStrings(b, "inline_string", "inline_bytes", "environment_variable");
      return b.build();
    }
    for (Map.Entry<FieldDescriptor, Object> e : message.getAllFields().entrySet()) {
      FieldDescriptor f = e.getKey();
      boolean secret = sensitive || isSensitive(f);
      if (f.getJavaType() != FieldDescriptor.JavaType.MESSAGE
          && f.getJavaType() != FieldDescriptor.JavaType.STRING
          && f.getJavaType() != FieldDescriptor.JavaType.BYTE_STRING) {
        if (secret) {
          b.clearField(f);
        }
        continue;
      }
      if (f.isRepeated()) {
        b.clearField(f);
        for (Object value : (List<?>) e.getValue()) {
          b.addRepeatedField(f, redactValue(f, value, secret));
        }
      } else {
        b.setField(f, redactValue(f, e.getValue(), secret));
      }
    }
    return b.build();
  }

  private Object redactValue(FieldDescriptor f, Object value, boolean secret) {
    return switch (f.getJavaType()) {
      case STRING -> secret ? REDACTED : value;
      case BYTE_STRING -> secret ? ByteString.copyFromUtf8(REDACTED) : value;
      case MESSAGE -> {
        Message m = (Message) value;
        if (!secret && f.getName().equals("initial_metadata")
            && m.getDescriptorForType().getFullName().equals(HEADER_VALUE)) {
          Message.Builder header = m.toBuilder();
          redactStrings(header, "value", "raw_value");
          yield header.build();
        }
        yield redact(m, secret);
      }
      default -> value;
    };
  }

  private Any redactAny(Any any, boolean sensitive) {
    String typeUrl = any.getTypeUrl();
    Descriptor type = types.find(typeUrl.substring(typeUrl.lastIndexOf('/') + 1));
    if (type == null) {
      return any;
    }
    try {
      Message inner = redact(DynamicMessage.parseFrom(type, any.getValue()), sensitive);
      return Any.newBuilder().setTypeUrl(typeUrl).setValue(inner.toByteString()).build();
    } catch (InvalidProtocolBufferException e) {
      return any; // printing it fails the same way, with the reason
    }
  }

  /** Sets each named string or bytes field that is set to {@code [redacted]}. */
  private static void redactStrings(Message.Builder b, String... names) {
    for (String name : names) {
      FieldDescriptor f = b.getDescriptorForType().findFieldByName(name);
      if (f == null || !b.hasField(f)) {
        continue;
      }
      if (f.getJavaType() == FieldDescriptor.JavaType.BYTE_STRING) {
        b.setField(f, ByteString.copyFromUtf8(REDACTED));
      } else if (f.getJavaType() == FieldDescriptor.JavaType.STRING) {
        b.setField(f, REDACTED);
      }
    }
  }

  private static boolean isSensitive(FieldDescriptor f) {
    // jwt_authn's local_jwks is not marked sensitive in Envoy's proto, but it may hold HMAC (oct) secrets.
    if (f.getName().equals("local_jwks")
        && f.getContainingType().getFullName().equals("envoy.extensions.filters.http.jwt_authn.v3.JwtProvider")) {
      return true;
    }
    return f.getOptions().getExtension(udpa.annotations.Sensitive.sensitive)
        || f.getOptions().getExtension(xds.annotations.v3.Sensitive.sensitive);
  }
}
