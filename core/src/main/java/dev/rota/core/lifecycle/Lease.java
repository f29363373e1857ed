package dev.rota.core.lifecycle;

import dev.rota.core.model.LeaseEnd;
import dev.rota.core.model.VmStatus;
import dev.rota.core.model.WireName;

/**
 * How long a VM may run ({@code maxRunDuration}) and what becomes of it then ({@code onExpiry}).
 * The lease begins when the VM first runs after its submission or a user's start, so that a VM
 * waiting for room spends none of it, and counts wall time from there: a restart, a move or a
 * failover gives none of it back. An extension moves its end later; a start after the VM stopped
 * begins a new lease.
 *
 * @param maxRunSeconds how long it may run; null when the VM has no lease
 * @param onExpiry what becomes of it when the lease runs out
 * @param endsAtMillis when the lease runs out, extensions included; 0 until it begins
 */
public record Lease(Integer maxRunSeconds, LeaseEnd onExpiry, long endsAtMillis) {
  public static final Lease NONE = new Lease(null, LeaseEnd.STOP, 0);

  /** The lease as the store holds it; an unknown or missing {@code onExpiry} is a stop. */
  public static Lease of(Integer maxRunSeconds, String onExpiry, long endsAtMillis) {
    if (maxRunSeconds == null) {
      return NONE;
    }
    LeaseEnd end =
        onExpiry == null
            ? LeaseEnd.STOP
            : WireName.parse(LeaseEnd.class, onExpiry).orElse(LeaseEnd.STOP);
    return new Lease(maxRunSeconds, end, endsAtMillis);
  }

  public boolean exists() {
    return maxRunSeconds != null;
  }

  public boolean begun() {
    return endsAtMillis > 0;
  }

  /**
   * The lease once the VM's life is {@code life}: it begins when the VM is first seen running, from
   * when its task started ({@code nowMillis} if that is not known).
   */
  public Lease heard(VmLife life, long nowMillis) {
    if (!exists() || begun() || life.status() != VmStatus.RUNNING) {
      return this;
    }
    long from = life.startedAtMillis() > 0 ? life.startedAtMillis() : nowMillis;
    return new Lease(maxRunSeconds, onExpiry, from + maxRunSeconds * 1000L);
  }

  /** A new lease, not yet begun: a user started the VM again. */
  public Lease renewed() {
    return new Lease(maxRunSeconds, onExpiry, 0);
  }

  /** The lease with its end {@code seconds} later. */
  public Lease extendedBy(long seconds) {
    return new Lease(maxRunSeconds, onExpiry, endsAtMillis + seconds * 1000L);
  }

  /** Whether the lease has run out by {@code nowMillis} with the VM still to be ended. */
  public boolean runsOutBy(long nowMillis, VmLife life) {
    return begun() && runs(life) && nowMillis >= endsAtMillis;
  }

  /** Whether there is a running lease whose end is still to come, for a timer to wait on. */
  public boolean pending(VmLife life) {
    return begun() && runs(life);
  }

  /** Whether the VM's lease counts on: not once it is finished or suspended. */
  private static boolean runs(VmLife life) {
    return !life.finished()
        && life.status() != VmStatus.SUSPENDING
        && life.status() != VmStatus.SUSPENDED;
  }

  /**
   * Why the lease of a VM whose life is {@code life} cannot be extended, or null when it can: only
   * a lease that has begun and not yet ended is.
   */
  public String refusesExtension(VmLife life) {
    if (!exists()) {
      return "it has no lease (maxRunDuration)";
    }
    if (!runs(life) || life.status() == VmStatus.STOPPING) {
      return "it is " + life.status().wireName() + "; a start begins a new lease";
    }
    if (!begun()) {
      return "its lease begins when it first runs";
    }
    return null;
  }
}
