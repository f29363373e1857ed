package dev.rota.api.auth;

import dev.rota.api.problem.Problems;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.context.ServerRequestContext;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Who is calling: the service account behind the token, or everyone when auth is off.
 *
 * @param roles the roles it holds in every namespace
 * @param namespaceRoles the roles it holds in one namespace only, by namespace
 * @param worker the worker a worker token is bound to
 */
public record Caller(
    String name, Set<Role> roles, Map<String, Set<Role>> namespaceRoles, @Nullable String worker) {
  static final String ATTRIBUTE = "rota.caller";

  /** Auth off (dev mode): every role, no worker scope. */
  public static final Caller EVERYONE =
      new Caller("anonymous", EnumSet.allOf(Role.class), Map.of(), null);

  public static Caller of(HttpRequest<?> request) {
    return request.getAttribute(ATTRIBUTE, Caller.class).orElse(EVERYONE);
  }

  /** The caller of the request being served; everyone outside a request (the system's own work). */
  public static Caller current() {
    return ServerRequestContext.currentRequest().map(Caller::of).orElse(EVERYONE);
  }

  /** Whether this caller acts only as a worker agent, and so only for its own worker. */
  public boolean workerOnly() {
    return worker != null && roles.equals(EnumSet.of(Role.WORKER));
  }

  /** Whether it holds one of {@code any} in every namespace. */
  public boolean holdsEverywhere(Role... any) {
    return Arrays.stream(any).anyMatch(roles::contains);
  }

  /** Whether it holds one of {@code any} in {@code namespace}, there or everywhere. */
  public boolean holds(String namespace, Role... any) {
    Set<Role> there = namespaceRoles.getOrDefault(namespace, Set.of());
    return holdsEverywhere(any) || Arrays.stream(any).anyMatch(there::contains);
  }

  /** The namespaces in which it holds one of {@code any} there only, in name order. */
  public Set<String> namespacesHolding(Role... any) {
    return namespaceRoles.entrySet().stream()
        .filter(e -> Arrays.stream(any).anyMatch(e.getValue()::contains))
        .map(Map.Entry::getKey)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** A 403 naming the namespace unless it holds one of {@code any} in it. */
  public void require(String namespace, Role... any) {
    if (!holds(namespace, any)) {
      throw Problems.forbidden(lacks(namespace, any));
    }
  }

  /** Why a call in {@code namespace} that takes one of {@code any} is refused this caller. */
  public String lacks(String namespace, Role... any) {
    return "account "
        + name
        + " lacks "
        + Role.names(any)
        + " in namespace "
        + namespace
        + heldIn(any);
  }

  /** Where it does hold one of {@code any}, if anywhere, for a refusal to say. */
  String heldIn(Role... any) {
    Set<String> held = namespacesHolding(any);
    return held.isEmpty() ? "" : " (it holds it in " + String.join(", ", held) + ")";
  }
}
