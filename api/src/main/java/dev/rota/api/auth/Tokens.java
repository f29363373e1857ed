package dev.rota.api.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Bearer tokens: 256 random bits, stored only as their SHA-256. A slow password hash would add
 * nothing here: the tokens are random, not chosen by people, so there is nothing to guess.
 */
public final class Tokens {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String PREFIX = "rota_";

  private Tokens() {}

  public static String generate() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  public static String hash(String token) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static final String HASH_ATTRIBUTE = "rota.token-hash";

  /**
   * The SHA-256 of the request's bearer token, if it has one: worked out once per request, for the
   * rate limit and the authentication both.
   */
  public static java.util.Optional<String> bearerHash(io.micronaut.http.HttpRequest<?> request) {
    java.util.Optional<String> known = request.getAttribute(HASH_ATTRIBUTE, String.class);
    if (known.isPresent()) {
      return known;
    }
    java.util.Optional<String> hash = bearer(request).map(Tokens::hash);
    hash.ifPresent(h -> request.setAttribute(HASH_ATTRIBUTE, h));
    return hash;
  }

  /** The request's bearer token, if it has a non-empty one. */
  private static java.util.Optional<String> bearer(io.micronaut.http.HttpRequest<?> request) {
    return request
        .getHeaders()
        .getAuthorization()
        .filter(h -> h.startsWith("Bearer "))
        .map(h -> h.substring(7).strip())
        .filter(t -> !t.isEmpty());
  }

  /** Comparison in constant time, so that a match cannot be found byte by byte. */
  public static boolean sameHash(String a, String b) {
    return MessageDigest.isEqual(
        a.getBytes(StandardCharsets.US_ASCII), b.getBytes(StandardCharsets.US_ASCII));
  }
}
