package dev.rota.agentapi;

import java.util.Optional;

/**
 * A task's id: the VM's name and its restart count, {@code build-42.3}. A VM name is a DNS label
 * and has no dot, so the id parses back unambiguously, and a restarted VM's task is never mistaken
 * for the one before.
 */
public record TaskId(String vm, int restartCount) {
  public static TaskId of(String vm, int restartCount) {
    return new TaskId(vm, restartCount);
  }

  /** The id's parts, or empty for an id Rota did not make. */
  public static Optional<TaskId> parse(String id) {
    int dot = id.lastIndexOf('.');
    if (dot <= 0 || dot == id.length() - 1 || id.indexOf('.') != dot) {
      return Optional.empty();
    }
    try {
      int restarts = Integer.parseInt(id.substring(dot + 1));
      return restarts < 0
          ? Optional.empty()
          : Optional.of(new TaskId(id.substring(0, dot), restarts));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /**
   * Whether a task of submission {@code a} may be taken for one of submission {@code b}: an id is
   * shared by every VM submitted under a name, so unless both are known and differ. Null: not said
   * (an agent or controller from before submissions were sent).
   */
  public static boolean sameSubmission(Long a, Long b) {
    return a == null || b == null || a.equals(b);
  }

  @Override
  public String toString() {
    return vm + "." + restartCount;
  }
}
