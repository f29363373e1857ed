package dev.rota.api.problem;

import dev.rota.control.NotAnswered;
import dev.rota.control.NotFound;
import dev.rota.control.Refused;
import dev.rota.control.RefusedElsewhere;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import jakarta.inject.Singleton;

/**
 * What the control plane's answers are in HTTP: a refusal is a 409, a quota's a 403, nothing by
 * that name a 404, no answer in time a 503, a refusal by a system beyond it (a registry) a 502.
 */
public final class ControlAnswers {
  private ControlAnswers() {}

  private static HttpResponse<?> answer(
      ErrorResponseProcessor<?> problems,
      HttpRequest<?> request,
      HttpStatus status,
      RuntimeException answer) {
    return problems.processResponse(
        ErrorContext.builder(request).errorMessage(answer.getMessage()).build(),
        HttpResponse.status(status));
  }

  /** The workflow said no, or a namesake is still closing: a 409 whose detail says why. */
  @Produces
  @Singleton
  static class RefusedHandler implements ExceptionHandler<Refused, HttpResponse<?>> {
    private final ErrorResponseProcessor<?> problems;

    RefusedHandler(ErrorResponseProcessor<?> problems) {
      this.problems = problems;
    }

    @Override
    public HttpResponse<?> handle(HttpRequest request, Refused refused) {
      return answer(problems, request, HttpStatus.CONFLICT, refused);
    }
  }

  /** Temporal did not take it in time: a 503 with Retry-After; nothing was done. */
  @Produces
  @Singleton
  static class NotAnsweredHandler implements ExceptionHandler<NotAnswered, HttpResponse<?>> {
    private final ErrorResponseProcessor<?> problems;

    NotAnsweredHandler(ErrorResponseProcessor<?> problems) {
      this.problems = problems;
    }

    @Override
    public HttpResponse<?> handle(HttpRequest request, NotAnswered unanswered) {
      return RetryLater.answer(
          problems,
          request,
          HttpStatus.SERVICE_UNAVAILABLE,
          RetryLater.OUTAGE_SECONDS,
          unanswered.getMessage());
    }
  }

  /** A system beyond the control plane refused what was asked: a 502 whose detail says why. */
  @Produces
  @Singleton
  static class RefusedElsewhereHandler
      implements ExceptionHandler<RefusedElsewhere, HttpResponse<?>> {
    private final ErrorResponseProcessor<?> problems;

    RefusedElsewhereHandler(ErrorResponseProcessor<?> problems) {
      this.problems = problems;
    }

    @Override
    public HttpResponse<?> handle(HttpRequest request, RefusedElsewhere refused) {
      return answer(problems, request, HttpStatus.BAD_GATEWAY, refused);
    }
  }

  /** A namespace's quota has no room for what was asked: a 403 naming the limit. */
  @Produces
  @Singleton
  static class QuotaExceededHandler
      implements ExceptionHandler<dev.rota.control.QuotaExceeded, HttpResponse<?>> {
    private final ErrorResponseProcessor<?> problems;

    QuotaExceededHandler(ErrorResponseProcessor<?> problems) {
      this.problems = problems;
    }

    @Override
    public HttpResponse<?> handle(HttpRequest request, dev.rota.control.QuotaExceeded exceeded) {
      return answer(problems, request, HttpStatus.FORBIDDEN, exceeded);
    }
  }

  /** Nothing by that name: a 404. */
  @Produces
  @Singleton
  static class NotFoundHandler implements ExceptionHandler<NotFound, HttpResponse<?>> {
    private final ErrorResponseProcessor<?> problems;

    NotFoundHandler(ErrorResponseProcessor<?> problems) {
      this.problems = problems;
    }

    @Override
    public HttpResponse<?> handle(HttpRequest request, NotFound missing) {
      return answer(problems, request, HttpStatus.NOT_FOUND, missing);
    }
  }
}
