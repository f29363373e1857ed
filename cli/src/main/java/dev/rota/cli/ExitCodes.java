package dev.rota.cli;

/**
 * What {@code rota} exits with, so that scripts can tell outcomes apart without reading its output.
 * The numbers are part of the CLI's contract: never reuse one for another meaning.
 */
public final class ExitCodes {
  private ExitCodes() {}

  public static final int OK = 0;

  /** Anything not below: the server failed (5xx), an unexpected answer. */
  public static final int FAILED = 1;

  /**
   * The command line was wrong (picocli's own code), or the server refused the input (400, 413).
   */
  public static final int USAGE = 2;

  /** 404: no such VM, worker, set or account. */
  public static final int NOT_FOUND = 3;

  /** 409: not allowed from its state now, or the name is taken. */
  public static final int CONFLICT = 4;

  /** 401 or 403: no token, a bad one, or one without the role. */
  public static final int DENIED = 5;

  /** The server did not answer (refused, timed out, unknown host). */
  public static final int UNREACHABLE = 6;

  /** {@code --wait} ran out of time before the state was reached. */
  public static final int TIMED_OUT = 7;

  /** {@code --wait} saw a state the wait can no longer end well from (the VM failed). */
  public static final int WAIT_FAILED = 8;

  /** The exit code for an HTTP error status. */
  public static int forStatus(int status) {
    return switch (status) {
      case 400, 413, 422 -> USAGE;
      case 401, 403 -> DENIED;
      case 404 -> NOT_FOUND;
      case 409 -> CONFLICT;
      default -> FAILED;
    };
  }
}
