package dev.rota.scheduling;

/**
 * A task as its agent reported it.
 *
 * @param state {@code starting}, {@code running}, {@code exited} or {@code failed}
 */
public record ObservedTask(String id, String state, Integer exitCode, String message) {
  public boolean ended() {
    return "exited".equals(state) || "failed".equals(state);
  }
}
