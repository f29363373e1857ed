package dev.rota.api.throttle;

import dev.rota.api.auth.AuthSettings;
import dev.rota.api.auth.Tokens;
import io.micronaut.http.HttpRequest;
import jakarta.inject.Singleton;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who a request comes from, for its rate: a token the host has seen authenticate is its own caller;
 * any other request (no token, or one not yet or never valid) is its address's, so that made-up
 * tokens cannot each have a bucket, and are limited before the database is asked about them. With
 * auth off (dev mode, on loopback) nobody is told apart: dev mode's own agents and a load harness
 * all come from 127.0.0.1.
 */
@Singleton
public class Callers {
  /**
   * Past this many, the tokens seen are forgotten and learnt again: a bound on the memory they
   * take.
   */
  static final int MAX_KNOWN = 10_000;

  private final AuthSettings auth;
  private final Set<String> known = ConcurrentHashMap.newKeySet();

  public Callers(AuthSettings auth) {
    this.auth = auth;
  }

  /** The token (by its hash) authenticated: from now on it is a caller of its own. */
  public void authenticated(String tokenHash) {
    if (known.size() >= MAX_KNOWN) {
      known.clear();
    }
    known.add(tokenHash);
  }

  /**
   * The request's caller, {@code "token <hash>"} or {@code "address <ip>"}; empty with auth off.
   */
  Optional<String> of(HttpRequest<?> request) {
    if (!auth.enabled()) {
      return Optional.empty();
    }
    Optional<String> hash = Tokens.bearerHash(request).filter(known::contains);
    return Optional.of(
        hash.map(h -> "token " + h)
            .orElseGet(
                () -> "address " + request.getRemoteAddress().getAddress().getHostAddress()));
  }
}
