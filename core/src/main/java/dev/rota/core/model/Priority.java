package dev.rota.core.model;

/**
 * How far ahead of other VMs one is placed: a pending VM of higher priority goes first, and, where
 * the cluster allows preemption, may evict running VMs of lower priority to make room.
 */
public final class Priority {
  public static final int MIN = 0;
  public static final int MAX = 100;

  /** A VM's priority when its spec gives none. */
  public static final int DEFAULT = 50;

  /**
   * How much lower than its own a VM's priority must be for a pending VM to evict it: VMs within
   * this of each other are peers, and a peer is never evicted for another.
   */
  public static final int PREEMPTION_GAP = 10;

  private Priority() {}
}
