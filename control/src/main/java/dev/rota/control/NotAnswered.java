package dev.rota.control;

/**
 * Temporal did not take what was asked in time (too many calls waiting, a workflow that did not
 * answer, no workflow that could be started): nothing was done, and the caller may try again
 * shortly.
 */
public class NotAnswered extends RuntimeException {
  public NotAnswered(String message) {
    super(message);
  }
}
