package dev.rota.api.problem;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.exceptions.HttpStatusException;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import jakarta.inject.Singleton;

/**
 * A 429 or 503 that nothing was done for: a problem with {@code Retry-After}, so clients know when.
 */
public final class RetryLater extends HttpStatusException {
  /**
   * What an outage's 503 tells clients to wait: the database's connection wait, Temporal's
   * deadline.
   */
  public static final long OUTAGE_SECONDS = 5;

  private final long seconds;

  public RetryLater(HttpStatus status, long seconds, String message) {
    super(status, message);
    this.seconds = Math.max(1, seconds);
  }

  /** The answer itself, for a filter that ends a request without throwing. */
  public static MutableHttpResponse<?> answer(
      ErrorResponseProcessor<?> problems,
      HttpRequest<?> request,
      HttpStatus status,
      long seconds,
      String detail) {
    return problems.processResponse(
        ErrorContext.builder(request).errorMessage(detail).build(),
        HttpResponse.status(status).header("Retry-After", String.valueOf(Math.max(1, seconds))));
  }

  /** Answers a thrown {@link RetryLater}. */
  @Produces
  @Singleton
  static class Handler implements ExceptionHandler<RetryLater, HttpResponse<?>> {
    private final ErrorResponseProcessor<?> problems;

    Handler(ErrorResponseProcessor<?> problems) {
      this.problems = problems;
    }

    @Override
    public HttpResponse<?> handle(HttpRequest request, RetryLater exception) {
      return answer(
          problems, request, exception.getStatus(), exception.seconds, exception.getMessage());
    }
  }
}
