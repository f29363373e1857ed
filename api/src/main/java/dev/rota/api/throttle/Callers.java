package dev.rota.api.throttle;

import dev.rota.api.auth.AuthSettings;
import dev.rota.api.auth.Tokens;
import io.micronaut.http.HttpRequest;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who a request comes from, for its rate: a token the host has seen authenticate is its own caller;
 * any other request (no token, or one not yet or never valid) is its address's, so that made-up
 * tokens are limited before the database is asked about them. A token not yet seen is charged to
 * its own bucket too, once its address lets it through: a new token's first burst, sent at once
 * from many threads before the first of them has authenticated, is then its burst, not its
 * address's and its own on top (the address bounds how many such buckets one address makes). With
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
   * The buckets the request is charged to, in order: {@code "token <hash>"} for a token seen to
   * authenticate; else {@code "address <ip>"}, then the token's own when it carries one; none with
   * auth off.
   */
  List<String> of(HttpRequest<?> request) {
    if (!auth.enabled()) {
      return List.of();
    }
    Optional<String> hash = Tokens.bearerHash(request);
    if (hash.isPresent() && known.contains(hash.get())) {
      return List.of("token " + hash.get());
    }
    String address = "address " + request.getRemoteAddress().getAddress().getHostAddress();
    return hash.map(h -> List.of(address, "token " + h)).orElse(List.of(address));
  }
}
