package dev.rota.api.problem;

import io.micronaut.data.exceptions.OptimisticLockException;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import jakarta.inject.Singleton;

/** A write that kept losing to concurrent changes is a 409 the client can retry, not a 500. */
@Produces
@Singleton
public class ConflictHandler implements ExceptionHandler<OptimisticLockException, HttpResponse<?>> {
  private final ErrorResponseProcessor<?> problems;

  public ConflictHandler(ErrorResponseProcessor<?> problems) {
    this.problems = problems;
  }

  @Override
  public HttpResponse<?> handle(HttpRequest request, OptimisticLockException exception) {
    return problems.processResponse(
        ErrorContext.builder(request)
            .cause(exception)
            .errorMessage(
                request.getPath() + " changed while the request ran; read it again and retry")
            .build(),
        HttpResponse.status(io.micronaut.http.HttpStatus.CONFLICT));
  }
}
