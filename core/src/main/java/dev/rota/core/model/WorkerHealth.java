package dev.rota.core.model;

/** A worker's health as the API spells it. */
public enum WorkerHealth implements WireName {
  READY("ready"),
  NOT_READY("not-ready"),
  LOST("lost"),
  OFFLINE("offline"),
  FLAKY("flaky");

  private final String wireName;

  WorkerHealth(String wireName) {
    this.wireName = wireName;
  }

  @Override
  public String wireName() {
    return wireName;
  }
}
