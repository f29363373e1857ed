package dev.rota.agent.runtimes;

/**
 * The labels by which a worker says what it enforces and how its VMs run, as placement can select
 * on them.
 */
public final class Isolation {
  /**
   * How process tasks' CPU and memory are enforced: {@code cgroup-v2}, {@code cgroup-v1}, or {@code
   * none}.
   */
  public static final String LABEL = "rota.dev/isolation";

  /**
   * How qemu guests run: {@code kvm} (hardware virtualization) or {@code tcg} (software emulation).
   */
  public static final String ACCEL_LABEL = "rota.dev/accel";

  /**
   * How qemu guests are held: {@code confined} (each guest's QEMU a user of its own, in a control
   * group of its own, its connections filtered) or {@code none}. A VM that requires isolation is
   * placed only where it is {@code confined}.
   */
  public static final String GUEST_LABEL = dev.rota.agentapi.GuestIsolation.LABEL;

  private Isolation() {}
}
