package dev.rota.api.auth;

import dev.rota.api.forward.TunnelRelay;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;

/**
 * Every request but {@code /health} and the OpenAPI document needs a bearer token whose account
 * holds one of the route's roles (its {@link RequiresRole}); 401 without a valid token, 403 without
 * the role. A route without {@code RequiresRole} is closed to all. An account holding the role in
 * some namespaces only may call a route acting in one of them ({@link NamespaceScope}). Worker
 * scoping (a worker token acting for its own worker only) is for the controllers, which know the
 * worker in question.
 */
@ServerFilter(ServerFilter.MATCH_ALL_PATTERN)
public class AuthFilter {
  private final AuthSettings settings;
  private final TokenAccounts accounts;
  private final ErrorResponseProcessor<?> problems;
  private final Callers callers;
  private final VmTokens vmTokens;
  private final ObjectNamespaces objects;

  public AuthFilter(
      AuthSettings settings,
      TokenAccounts accounts,
      ErrorResponseProcessor<?> problems,
      Callers callers,
      VmTokens vmTokens,
      ObjectNamespaces objects) {
    this.vmTokens = vmTokens;
    this.objects = objects;
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
    Caller caller = caller(account.get());
    Optional<RouteMatch<?>> route = RouteAttributes.getRouteMatch(request);
    // A socket into a VM (port-forward, console, exec) opens by an upgrade no controller route
    // matches.
    Matcher socket = TunnelRelay.PATHS.matcher(request.getPath());
    boolean forward = socket.matches();
    if (route.isEmpty() && !forward) {
      return null; // no such route: the router answers 404
    }
    Role[] needed =
        forward
            ? new Role[] {Role.COMPUTE_CONNECT}
            : route.get().getAnnotationMetadata().enumValues(RequiresRole.class, Role.class);
    if (!caller.holdsEverywhere(needed)) {
      NamespaceScope.From scope =
          forward
              ? NamespaceScope.From.VM
              : route
                  .get()
                  .getAnnotationMetadata()
                  .enumValue(NamespaceScope.class, NamespaceScope.From.class)
                  .orElse(null);
      Object name = forward ? socket.group(1) : route.get().getVariableValues().get("name");
      String refusal = refusal(request, caller, needed, scope, String.valueOf(name));
      if (refusal != null) {
        return refuse(request, HttpStatus.FORBIDDEN, refusal);
      }
    }
    request.setAttribute(Caller.ATTRIBUTE, caller);
    return null;
  }

  private static Caller caller(ServiceAccountRow account) {
    Map<String, Set<Role>> namespaceRoles = new HashMap<>();
    account
        .namespaceRoles()
        .forEach((namespace, names) -> namespaceRoles.put(namespace, roles(names)));
    return new Caller(account.name(), roles(account.roles()), namespaceRoles, account.worker());
  }

  private static Set<Role> roles(List<String> names) {
    Set<Role> roles = EnumSet.noneOf(Role.class);
    names.forEach(r -> Role.parse(r).ifPresent(roles::add));
    return roles;
  }

  /**
   * Why a caller without the route's role in every namespace may not call it, or null when it holds
   * the role in the namespace the route acts in.
   */
  @Nullable
  private String refusal(
      HttpRequest<?> request,
      Caller caller,
      Role[] needed,
      @Nullable NamespaceScope.From scope,
      String name) {
    String everywhere =
        "account "
            + caller.name()
            + " lacks the role for this call (needs "
            + Role.names(needed)
            + (scope == null ? " in every namespace" : "")
            + ")"
            + caller.heldIn(needed);
    Set<String> held = caller.namespacesHolding(needed);
    if (scope == null) {
      return everywhere;
    }
    String namespace;
    switch (scope) {
      case BODY -> {
        return held.isEmpty() ? everywhere : null; // the service checks the body's namespace
      }
      case QUERY -> {
        namespace = request.getParameters().get("namespace");
        if (namespace == null) {
          return held.isEmpty()
              ? everywhere
              : "account "
                  + caller.name()
                  + " holds "
                  + Role.names(needed)
                  + (held.size() == 1 ? " in namespace " : " in namespaces ")
                  + String.join(", ", held)
                  + " only: name one (?namespace="
                  + held.iterator().next()
                  + ")";
        }
      }
      default -> {
        Optional<String> found = objects.of(scope, name);
        if (found.isEmpty()) {
          return held.isEmpty() ? everywhere : null; // the route says there is no such object
        }
        namespace = found.get();
      }
    }
    return caller.holds(namespace, needed) ? null : caller.lacks(namespace, needed);
  }

  /** The calls anyone may make: the health check and the API document. */
  public static boolean isOpen(String path) {
    return path.equals("/health")
        || path.startsWith("/health/")
        || path.equals("/openapi.yml")
        || path.equals("/swagger/rota-1.yml");
  }

  private HttpResponse<?> refuse(HttpRequest<?> request, HttpStatus status, String detail) {
    return problems.processResponse(
        ErrorContext.builder(request).errorMessage(detail).build(), HttpResponse.status(status));
  }
}
