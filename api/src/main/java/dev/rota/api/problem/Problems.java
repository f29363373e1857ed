package dev.rota.api.problem;

import io.micronaut.http.HttpStatus;
import io.micronaut.http.exceptions.HttpStatusException;

/** The API's own errors; the message becomes the problem's detail. */
public final class Problems {
  private Problems() {}

  public static HttpStatusException badRequest(String field, String message) {
    return badRequest(field + ": " + message);
  }

  /** A 400 whose detail is already worded as {@code field: what is wrong}. */
  public static HttpStatusException badRequest(String detail) {
    return new HttpStatusException(HttpStatus.BAD_REQUEST, detail);
  }

  public static HttpStatusException notFound(String kind, String name) {
    return new HttpStatusException(HttpStatus.NOT_FOUND, kind + " '" + name + "' does not exist");
  }

  /** A 403: the caller may call this, but not with what the request holds. */
  public static HttpStatusException forbidden(String message) {
    return new HttpStatusException(HttpStatus.FORBIDDEN, message);
  }

  public static HttpStatusException conflict(String message) {
    return new HttpStatusException(HttpStatus.CONFLICT, message);
  }

  /** Something the request needs from elsewhere (an agent) did not answer as it should. */
  public static HttpStatusException badGateway(String message) {
    return new HttpStatusException(HttpStatus.BAD_GATEWAY, message);
  }

  /**
   * A 410: what was asked for is no longer kept (a watch's resourceVersion older than the feed).
   */
  public static HttpStatusException gone(String field, String message) {
    return new HttpStatusException(HttpStatus.GONE, field + ": " + message);
  }

  /**
   * A 429: this host keeps no more of what was asked for (a watch) now; try again in a second or
   * more.
   */
  public static HttpStatusException tooMany(String message) {
    return new RetryLater(HttpStatus.TOO_MANY_REQUESTS, 1, message);
  }

  /**
   * A 503: the database or Temporal did not answer in time; nothing was done, and Retry-After says
   * when to try again.
   */
  public static HttpStatusException unavailable(String message) {
    return new RetryLater(HttpStatus.SERVICE_UNAVAILABLE, RetryLater.OUTAGE_SECONDS, message);
  }
}
