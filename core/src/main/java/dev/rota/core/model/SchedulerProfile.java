package dev.rota.core.model;

/** How the scheduler chooses among the workers a VM fits on. */
public enum SchedulerProfile implements WireName {
  /** The fullest fitting worker first: keeps whole machines free. */
  OPTIMIZE_UTILIZATION("optimize-utilization"),
  /** The emptiest fitting worker first: spreads the load. */
  DISTRIBUTE_LOAD("distribute-load");

  private final String wireName;

  SchedulerProfile(String wireName) {
    this.wireName = wireName;
  }

  @Override
  public String wireName() {
    return wireName;
  }
}
