package dev.rota.model;

/** A VM's status as API.md spells it. */
public enum VmStatus implements WireName {
  PENDING("pending"),
  SCHEDULED("scheduled"),
  RUNNING("running"),
  STOPPING("stopping"),
  STOPPED("stopped"),
  FAILED("failed");

  private final String wireName;

  VmStatus(String wireName) {
    this.wireName = wireName;
  }

  @Override
  public String wireName() {
    return wireName;
  }
}
