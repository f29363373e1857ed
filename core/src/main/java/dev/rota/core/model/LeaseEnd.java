package dev.rota.core.model;

/** What becomes of a VM whose lease runs out ({@code onExpiry}). */
public enum LeaseEnd implements WireName {
  /** Stopped, as a user's stop does: its row and events stay, and a start runs it again. */
  STOP("stop"),
  /** Deleted, as a user's delete does: its task, its row and its events go. */
  DELETE("delete"),
  /**
   * Suspended, as a user's suspend does: its memory is saved on its worker and a start resumes it;
   * stopped instead when it cannot be.
   */
  SUSPEND("suspend");

  private final String wireName;

  LeaseEnd(String wireName) {
    this.wireName = wireName;
  }

  @Override
  public String wireName() {
    return wireName;
  }
}
