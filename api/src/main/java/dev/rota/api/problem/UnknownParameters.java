package dev.rota.api.problem;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.order.Ordered;
import io.micronaut.core.type.Argument;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import io.micronaut.web.router.MethodBasedRouteMatch;
import io.micronaut.web.router.RouteAttributes;
import io.micronaut.websocket.annotation.OnOpen;
import io.micronaut.websocket.annotation.ServerWebSocket;
import java.util.Set;
import java.util.TreeSet;

/**
 * A query parameter a call does not take is a 400 naming it, as an unknown field of a body is: a
 * misspelt {@code ?dryrun=true} would otherwise do the real thing.
 */
@ServerFilter("/v1/**")
public class UnknownParameters implements Ordered {
  private final ErrorResponseProcessor<?> problems;

  public UnknownParameters(ErrorResponseProcessor<?> problems) {
    this.problems = problems;
  }

  /** After authentication: a caller without the role learns nothing of the call's parameters. */
  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE;
  }

  /** Null lets the request through; a response ends it. */
  @RequestFilter
  @Nullable
  public HttpResponse<?> check(HttpRequest<?> request) {
    if (request.getParameters().isEmpty()) {
      return null; // most calls: nothing to look up
    }
    if (!(RouteAttributes.getRouteMatch(request).orElse(null)
            instanceof MethodBasedRouteMatch<?, ?> route)
        || route.hasStereotype(ServerWebSocket.class)
        || route.hasAnnotation(OnOpen.class)) {
      // A socket's opening reads its parameters itself (a command's words, a port's name).
      return null;
    }
    Set<String> taken = new TreeSet<>();
    for (Argument<?> a : route.getArguments()) {
      if (a.getAnnotationMetadata().hasAnnotation(QueryValue.class)) {
        taken.add(a.getAnnotationMetadata().stringValue(QueryValue.class).orElse(a.getName()));
      }
    }
    for (String name : new TreeSet<>(request.getParameters().names())) {
      if (!taken.contains(name)) {
        return problems.processResponse(
            ErrorContext.builder(request)
                .errorMessage(
                    name
                        + ": is not a parameter of this call; "
                        + (taken.isEmpty() ? "it takes none" : "it takes " + taken))
                .build(),
            HttpResponse.status(HttpStatus.BAD_REQUEST));
      }
    }
    return null;
  }
}
