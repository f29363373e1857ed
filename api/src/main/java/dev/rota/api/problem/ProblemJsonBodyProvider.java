package dev.rota.api.problem;

import io.micronaut.context.annotation.Replaces;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.server.exceptions.response.Error;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.JsonErrorResponseBodyProvider;
import jakarta.inject.Singleton;
import java.util.stream.Collectors;

/**
 * Turns every error Micronaut produces (validation, malformed JSON, a body over the limit, an
 * unknown route, and the API's own {@code HttpStatusException}s) into a problem whose detail names
 * the field.
 */
@Singleton
@Replaces(JsonErrorResponseBodyProvider.class)
public class ProblemJsonBodyProvider implements JsonErrorResponseBodyProvider<Problem> {
  public static final String PROBLEM_JSON = "application/problem+json";

  @Override
  public Problem body(ErrorContext context, HttpResponse<?> response) {
    String detail =
        context.getErrors().stream()
            .map(ProblemJsonBodyProvider::describe)
            .distinct()
            .collect(Collectors.joining("; "));
    if (detail.isBlank()) {
      detail = response.reason();
    }
    return new Problem("about:blank", response.reason(), response.code(), detail);
  }

  @Override
  public String contentType() {
    return PROBLEM_JSON;
  }

  private static String describe(Error error) {
    String message = DecodingMessages.clean(error.getMessage());
    // A parameter that did not convert comes with the path "/limit": its name is the field.
    return error
        .getPath()
        .map(path -> path.replaceFirst("^/", "") + ": " + message)
        .orElse(message);
  }
}
