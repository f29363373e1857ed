package dev.rota.core.lifecycle;

import dev.rota.core.model.WireName;

/** How a warm pool's ready replicas wait for a claim ({@link PoolRule}). */
public enum PoolStandby implements WireName {
  /** Booted and running: a claim hands one out as it is. */
  RUNNING("running"),
  /** Booted, then suspended: a claim resumes one. */
  SUSPENDED("suspended");

  private final String wireName;

  PoolStandby(String wireName) {
    this.wireName = wireName;
  }

  @Override
  public String wireName() {
    return wireName;
  }

  /** The standby a pool stores ({@code null} is {@link #RUNNING}). */
  public static PoolStandby of(String stored) {
    return SUSPENDED.wireName.equals(stored) ? SUSPENDED : RUNNING;
  }
}
