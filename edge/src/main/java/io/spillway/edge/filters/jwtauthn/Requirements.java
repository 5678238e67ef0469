package io.spillway.edge.filters.jwtauthn;

import io.spillway.edge.http.message.RequestHeaders;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@code JwtRequirement} compiled into a tree of checks (Envoy's verifiers), built once per
 * filter config. Checks run inline on the worker against immutable key sets and never wait: when
 * a token needs a remote provider's keys that are not there, the check ends with
 * {@link JwtStatus#KEYS_PENDING} and names that provider ({@link Verification#pending()}); once the
 * fetch is done the filter runs the whole check again with what the fetch gave, so the result is
 * the one a sequential check with those keys gives.
 */
final class Requirements {
  private Requirements() {}

  /**
   * One request's verification: what it reads, the tokens verified so far, and the remote key
   * sets it has used (each provider's read once, so a run again sees the same keys).
   */
  static final class Verification implements ProviderVerifier.KeyLookup {
    final RequestHeaders request;
    final long nowSeconds;
    final List<Success> successes = new ArrayList<>(2);
    private Map<ProviderVerifier, JwksKeys> remoteKeys;
    private ProviderVerifier pending;

    Verification(RequestHeaders request, long nowSeconds) {
      this.request = request;
      this.nowSeconds = nowSeconds;
    }

    void truncate(int size) {
      while (successes.size() > size) {
        successes.remove(successes.size() - 1);
      }
    }

    @Override
    public JwksKeys keys(ProviderVerifier provider) {
      JwksKeys keys = provider.localKeys();
      if (keys != null) {
        return keys;
      }
      keys = remoteKeys == null ? null : remoteKeys.get(provider);
      if (keys == null) {
        keys = provider.remote().current();
        if (keys == null) {
          pending = provider;
          return null;
        }
        resolved(provider, keys);
      }
      return keys;
    }

    /** The provider whose keys the last run waited for, or null. */
    ProviderVerifier pending() {
      return pending;
    }

    /** What the fetch gave for a provider (keys or {@link JwksKeys#FETCH_FAILED}), for the next run. */
    void resolved(ProviderVerifier provider, JwksKeys keys) {
      if (remoteKeys == null) {
        remoteKeys = new java.util.HashMap<>(4);
      }
      remoteKeys.put(provider, keys);
    }

    /** Forgets the last run's tokens and pending provider before the check runs again. */
    void restart() {
      successes.clear();
      pending = null;
    }
  }

  /** A token that verified, and where it was found. */
  record Success(ProviderVerifier.Verified verified, TokenExtractor.Token token) {}

  /** One node of a requirement. */
  sealed interface Check permits ProviderCheck, AllowMissingCheck, AnyCheck, AllCheck {
    JwtStatus check(Verification v);
  }

  /** {@code provider_name} / {@code provider_and_audiences}: every token of the provider must verify. */
  record ProviderCheck(ProviderVerifier provider, TokenExtractor extractor, List<String> audiences) implements Check {
    @Override
    public JwtStatus check(Verification v) {
      List<TokenExtractor.Token> tokens = extractor.extract(v.request);
      if (tokens.isEmpty()) {
        return JwtStatus.MISSING;
      }
      // Envoy: a request with several tokens needs every one valid (a good one must not carry a bad one).
      for (int i = 0; i < tokens.size(); i++) {
        ProviderVerifier.Outcome o = provider.verify(tokens.get(i).value(), v.nowSeconds, audiences, v);
        if (o.status() != JwtStatus.OK) {
          return o.status();
        }
        v.successes.add(new Success(o.verified(), tokens.get(i)));
      }
      return JwtStatus.OK;
    }
  }

  /**
   * {@code allow_missing} ({@code orFailed} false) and {@code allow_missing_or_failed}: the tokens
   * of every provider; each is checked by the providers that look where it was found (the one of
   * its issuer decides). No token passes; a bad one fails unless {@code orFailed}.
   */
  record AllowMissingCheck(List<ProviderCheck> providers, boolean orFailed) implements Check {
    @Override
    public JwtStatus check(Verification v) {
      Map<String, List<ProviderCheck>> byToken = new LinkedHashMap<>();
      Map<String, TokenExtractor.Token> tokens = new LinkedHashMap<>();
      for (int i = 0; i < providers.size(); i++) {
        ProviderCheck p = providers.get(i);
        for (TokenExtractor.Token t : p.extractor().extract(v.request)) {
          byToken.computeIfAbsent(t.value(), k -> new ArrayList<>(2)).add(p);
          tokens.putIfAbsent(t.value(), t);
        }
      }
      for (Map.Entry<String, List<ProviderCheck>> e : byToken.entrySet()) {
        JwtStatus failure = null;
        boolean verified = false;
        for (ProviderCheck p : e.getValue()) {
          ProviderVerifier.Outcome o = p.provider().verify(e.getKey(), v.nowSeconds, List.of(), v);
          if (o.status() == JwtStatus.KEYS_PENDING) {
            return o.status();
          }
          if (o.status() == JwtStatus.OK) {
            v.successes.add(new Success(o.verified(), tokens.get(e.getKey())));
            verified = true;
            break;
          }
          if (failure == null || failure == JwtStatus.UNKNOWN_ISSUER) {
            failure = o.status();
          }
        }
        if (!verified && !orFailed) {
          return failure;
        }
      }
      return JwtStatus.OK;
    }
  }

  /**
   * {@code requires_any}, as Envoy's {@code AnyVerifierImpl}: the first that holds is enough. An
   * {@code allow_missing} or {@code allow_missing_or_failed} among them is not a check of its own
   * but a flag. When none holds, the statuses are aggregated: any error other than "missing" and
   * "unknown issuer" wins (the last such), then "unknown issuer", then "missing"; then
   * {@code allow_missing_or_failed} makes any of them a pass and {@code allow_missing} makes
   * "missing" a pass.
   */
  record AnyCheck(List<Check> checks, boolean allowMissing, boolean allowMissingOrFailed) implements Check {
    @Override
    public JwtStatus check(Verification v) {
      JwtStatus result = JwtStatus.MISSING;
      for (int i = 0; i < checks.size(); i++) {
        int mark = v.successes.size();
        JwtStatus s = checks.get(i).check(v);
        if (s == JwtStatus.OK || s == JwtStatus.KEYS_PENDING) {
          return s;
        }
        v.truncate(mark);
        if ((s != JwtStatus.MISSING && s != JwtStatus.UNKNOWN_ISSUER) || result == JwtStatus.MISSING) {
          result = s;
        }
      }
      if (allowMissingOrFailed || (allowMissing && result == JwtStatus.MISSING)) {
        return JwtStatus.OK;
      }
      return result;
    }
  }

  /** {@code requires_all}: each must hold; the first refusal is the answer. */
  record AllCheck(List<Check> checks) implements Check {
    @Override
    public JwtStatus check(Verification v) {
      for (int i = 0; i < checks.size(); i++) {
        JwtStatus s = checks.get(i).check(v);
        if (s != JwtStatus.OK) {
          return s;
        }
      }
      return JwtStatus.OK;
    }
  }
}
