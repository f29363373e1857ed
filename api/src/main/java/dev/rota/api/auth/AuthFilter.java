package dev.rota.api.auth;

import dev.rota.api.throttle.Callers;
import dev.rota.store.ServiceAccountRow;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.micronaut.web.router.RouteAttributes;
import io.micronaut.web.router.RouteMatch;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * Every request but {@code /health} and the OpenAPI document needs a bearer token whose account
 * holds one of the route's roles (its {@link RequiresRole}); 401 without a valid token, 403 without
 * the role. A route without {@code RequiresRole} is closed to all. Worker scoping (a worker token
 * acting for its own worker only) is for the controllers, which know the worker in question.
 */
@ServerFilter(ServerFilter.MATCH_ALL_PATTERN)
public class AuthFilter {
  private final AuthSettings settings;
  private final TokenAccounts accounts;
  private final ErrorResponseProcessor<?> problems;
  private final Callers callers;
  private final VmTokens vmTokens;

  public AuthFilter(
      AuthSettings settings,
      TokenAccounts accounts,
      ErrorResponseProcessor<?> problems,
      Callers callers,
      VmTokens vmTokens) {
    this.vmTokens = vmTokens;
    this.settings = settings;
    this.callers = callers;
    this.accounts = accounts;
    this.problems = problems;
  }

  /** Null lets the request through; a response ends it. */
  @RequestFilter
  @ExecuteOn(TaskExecutors.BLOCKING)
  @Nullable
  public HttpResponse<?> authenticate(HttpRequest<?> request) {
    if (!settings.enabled() || isOpen(request.getPath())) {
      return null;
    }
    Optional<String> bearerHash = Tokens.bearerHash(request);
    if (bearerHash.isEmpty()) {
      return refuse(
          request,
          HttpStatus.UNAUTHORIZED,
          "this call needs a bearer token: Authorization: Bearer <token>");
    }
    String hash = bearerHash.get();
    Optional<ServiceAccountRow> account = accounts.byTokenHash(hash);
    if (account.isEmpty()) {
      return vmTokens
          .admit(request, hash)
          .map(refusal -> refuse(request, refusal.status(), refusal.detail()))
          .orElse(null);
    }
    callers.authenticated(hash);
    Set<Role> roles = EnumSet.noneOf(Role.class);
    account.get().roles().forEach(r -> Role.parse(r).ifPresent(roles::add));
    Caller caller = new Caller(account.get().name(), roles, account.get().worker());
    Optional<RouteMatch<?>> route = RouteAttributes.getRouteMatch(request);
    // A socket into a VM (port-forward, console, exec) opens by an upgrade no controller route
    // matches.
    boolean forward = dev.rota.api.forward.TunnelRelay.PATHS.matcher(request.getPath()).matches();
    Role[] needed =
        forward
            ? new Role[] {Role.COMPUTE_CONNECT}
            : route
                .map(m -> m.getAnnotationMetadata().enumValues(RequiresRole.class, Role.class))
                .orElse(new Role[0]);
    for (Role role : needed) {
      if (roles.contains(role)) {
        request.setAttribute(Caller.ATTRIBUTE, caller);
        return null;
      }
    }
    if (route.isEmpty() && !forward) {
      return null; // no such route: the router answers 404
    }
    return refuse(
        request,
        HttpStatus.FORBIDDEN,
        "account "
            + caller.name()
            + " lacks the role for this call (needs one of "
            + names(needed)
            + ")");
  }

  /** The calls anyone may make: the health check and the API document. */
  public static boolean isOpen(String path) {
    return path.equals("/health")
        || path.startsWith("/health/")
        || path.equals("/openapi.yml")
        || path.equals("/swagger/rota-1.yml");
  }

  private static String names(Role[] roles) {
    StringBuilder b = new StringBuilder();
    for (Role r : roles) {
      b.append(b.length() == 0 ? "" : ", ").append(r.wireName());
    }
    return b.length() == 0 ? "a role no account has" : b.toString();
  }

  private HttpResponse<?> refuse(HttpRequest<?> request, HttpStatus status, String detail) {
    return problems.processResponse(
        ErrorContext.builder(request).errorMessage(detail).build(), HttpResponse.status(status));
  }
}
