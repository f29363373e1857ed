package dev.rota.agentapi;

/**
 * What an answer with a task's logs says besides the bytes; the controller's API passes them on to
 * its own callers.
 */
public final class LogHeaders {
  /**
   * The offset just past the bytes returned: a reader that follows the log asks for what follows
   * it, and so loses nothing that is still kept however fast the task writes.
   */
  public static final String NEXT = "Rota-Log-Next";

  /** {@code true} while the task may still write; {@code false} once it has ended. */
  public static final String LIVE = "Rota-Log-Live";

  private LogHeaders() {}
}
