package dev.rota.agentapi;

/**
 * A VM's checks, each optional: {@code readiness} says when it is ready (until it passes, and after
 * it fails, the VM runs but is not ready), {@code liveness} when it must be restarted (its agent
 * stops it, and it fails, with the check's words, to be restarted under its restart policy).
 */
public record Checks(CheckSpec readiness, CheckSpec liveness) {
  /** Whether {@code checks} has none (static, so that no serializer takes it for a property). */
  public static boolean none(Checks checks) {
    return checks == null || (checks.readiness == null && checks.liveness == null);
  }
}
