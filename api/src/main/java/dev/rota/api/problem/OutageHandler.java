package dev.rota.api.problem;

import dev.rota.core.failure.Causes;
import dev.rota.store.CommitInDoubtException;
import dev.rota.store.Sql;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import jakarta.inject.Singleton;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An exception no other handler claims: when it comes from the database or Temporal being out of
 * reach, a 503 the client can retry (the request's transaction did not commit, so nothing was
 * changed, or, rarely, the database went away while committing it and did not come back to say
 * whether it did); else the 500 Micronaut would have answered. Outages are expected and logged once
 * per request at WARN, without a stack trace; anything else is a defect and logged at ERROR with
 * one.
 */
@Produces
@Singleton
public class OutageHandler implements ExceptionHandler<RuntimeException, HttpResponse<?>> {
  private static final Logger LOG = LoggerFactory.getLogger(OutageHandler.class);

  /** Temporal's answers that mean "not reachable now", as opposed to "refused". */
  private static final Set<Status.Code> TEMPORAL_OUT =
      Set.of(
          Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED, Status.Code.RESOURCE_EXHAUSTED);

  private final ErrorResponseProcessor<?> problems;

  public OutageHandler(ErrorResponseProcessor<?> problems) {
    this.problems = problems;
  }

  @Override
  public HttpResponse<?> handle(HttpRequest request, RuntimeException exception) {
    Optional<String> outage = outage(exception);
    if (outage.isEmpty()) {
      LOG.error(
          "unexpected error answering {} {}", request.getMethod(), request.getPath(), exception);
      return problems.processResponse(
          ErrorContext.builder(request)
              .cause(exception)
              .errorMessage("Internal Server Error: " + exception.getMessage())
              .build(),
          HttpResponse.status(HttpStatus.INTERNAL_SERVER_ERROR));
    }
    LOG.warn(
        "{} {} answered 503: {} ({})",
        request.getMethod(),
        request.getPath(),
        outage.get(),
        rootCause(exception));
    return RetryLater.answer(
        problems,
        request,
        HttpStatus.SERVICE_UNAVAILABLE,
        RetryLater.OUTAGE_SECONDS,
        detail(exception, outage.get()));
  }

  /** What the 503 says: that nothing was changed, unless the change may have been stored. */
  static String detail(Throwable exception, String outage) {
    if (Causes.first(exception, CommitInDoubtException.class).isPresent()) {
      return "the database went away while this request's change was being committed and has not come back: "
          + "it may have been stored; look before trying again";
    }
    return outage + "; nothing was changed, try again shortly";
  }

  /** What is out of reach, if the exception (or one of its causes) says a service is. */
  static Optional<String> outage(Throwable exception) {
    if (Sql.isConnectionLost(exception)) {
      return Optional.of("the database cannot be reached");
    }
    if (Causes.any(
        exception,
        t ->
            t instanceof StatusRuntimeException grpc
                && TEMPORAL_OUT.contains(grpc.getStatus().getCode()))) {
      return Optional.of("Temporal cannot be reached");
    }
    return Optional.empty();
  }

  private static String rootCause(Throwable exception) {
    return Causes.root(exception).toString();
  }
}
