package dev.rota.control;

/**
 * What was asked would take its namespace past a limit of its quota: nothing was done. The message
 * names the namespace, the quota, what is in use and what was asked.
 */
public class QuotaExceeded extends RuntimeException {
  public QuotaExceeded(String message) {
    super(message);
  }
}
