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

  @Override
  public String toString() {
    return vm + "." + restartCount;
  }
}
