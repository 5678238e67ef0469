package io.spillway.edge.filters.jwtauthn;

/**
 * Why a token was refused, with Envoy's status strings (jwt_verify_lib's
 * {@code getStatusString}): they are the body of the 401 (403 for the audience) and, with spaces
 * turned into underscores, the response code details {@code jwt_authn_access_denied{...}}.
 */
enum JwtStatus {
  OK("OK"),
  MISSING("Jwt is missing"),
  NOT_YET_VALID("Jwt not yet valid"),
  EXPIRED("Jwt is expired"),
  BAD_FORMAT("Jwt is not in the form of Header.Payload.Signature with two dots and 3 sections"),
  HEADER_BAD_BASE64("Jwt header is an invalid Base64url encoded"),
  HEADER_BAD_JSON("Jwt header is an invalid JSON"),
  HEADER_BAD_ALG("Jwt header [alg] field is required and must be a string"),
  HEADER_NOT_IMPLEMENTED_ALG("Jwt header [alg] is not supported"),
  HEADER_BAD_KID("Jwt header [kid] field is not a string"),
  PAYLOAD_BAD_BASE64("Jwt payload is an invalid Base64url encoded"),
  PAYLOAD_BAD_JSON("Jwt payload is an invalid JSON"),
  ISS_NOT_STRING("Jwt payload [iss] field is not a string"),
  IAT_NOT_INTEGER("Jwt payload [iat] field is not an integer"),
  IAT_OUT_OF_RANGE("Jwt payload [iat] field is not a positive 64 bit integer"),
  NBF_NOT_INTEGER("Jwt payload [nbf] field is not an integer"),
  NBF_OUT_OF_RANGE("Jwt payload [nbf] field is not a positive 64 bit integer"),
  EXP_NOT_INTEGER("Jwt payload [exp] field is not an integer"),
  EXP_OUT_OF_RANGE("Jwt payload [exp] field is not a positive 64 bit integer"),
  AUD_NOT_STRING("Jwt payload [aud] field is not a string or string list"),
  SIGNATURE_BAD_BASE64("Jwt signature is an invalid Base64url encoded"),
  UNKNOWN_ISSUER("Jwt issuer is not configured"),
  AUDIENCE_NOT_ALLOWED("Audiences in Jwt are not allowed"),
  VERIFICATION_FAIL("Jwt verification fails"),
  KID_ALG_MISMATCH("Jwks doesn't have key to match kid or alg from Jwt"),
  /** The remote JWKS could not be fetched (or was not a usable JWKS): Envoy's {@code JwksFetchFail}. */
  JWKS_FETCH_FAILED("Jwks remote fetch is failed"),
  /**
   * Not a verdict: the provider's remote keys are not there yet. The check stops, the filter waits
   * for the fetch and runs the check again; it is never a reply.
   */
  KEYS_PENDING("");

  private final String message;

  JwtStatus(String message) {
    this.message = message;
  }

  /** Envoy's status string. */
  String message() {
    return message;
  }

  /** The HTTP status of a refusal: 403 for an audience not allowed, 401 otherwise (as Envoy). */
  int httpStatus() {
    return this == AUDIENCE_NOT_ALLOWED ? 403 : 401;
  }
}
