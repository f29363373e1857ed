package dev.rota.api.auth;

import io.micronaut.http.HttpStatus;
import io.micronaut.http.exceptions.HttpStatusException;

/**
 * A worker token acts for its own worker only: Orchard's workers can do everything; Rota's cannot.
 */
public final class WorkerScope {
  private WorkerScope() {}

  /** Refuses (403) a worker-only caller acting for any worker but its own; others pass. */
  public static void require(Caller caller, String worker) {
    if (caller.workerOnly() && !caller.worker().equals(worker)) {
      throw new HttpStatusException(
          HttpStatus.FORBIDDEN,
          "account "
              + caller.name()
              + " may act for worker "
              + caller.worker()
              + " only, not '"
              + worker
              + "'");
    }
  }
}
