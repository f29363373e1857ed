package dev.rota.api.auth;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import java.util.EnumSet;
import java.util.Set;

/**
 * Who is calling: the service account behind the token, or everyone when auth is off.
 *
 * @param worker the worker a worker token is bound to
 */
public record Caller(String name, Set<Role> roles, @Nullable String worker) {
  static final String ATTRIBUTE = "rota.caller";

  /** Auth off (dev mode): every role, no worker scope. */
  public static final Caller EVERYONE = new Caller("anonymous", EnumSet.allOf(Role.class), null);

  public static Caller of(HttpRequest<?> request) {
    return request.getAttribute(ATTRIBUTE, Caller.class).orElse(EVERYONE);
  }

  /** Whether this caller acts only as a worker agent, and so only for its own worker. */
  public boolean workerOnly() {
    return worker != null && roles.equals(EnumSet.of(Role.WORKER));
  }
}
