package dev.rota.core.model;

/** When a VM whose task ended is started again. */
public enum RestartPolicy implements WireName {
  NEVER("Never"),
  ON_FAILURE("OnFailure"),
  ALWAYS("Always");

  private final String wireName;

  RestartPolicy(String wireName) {
    this.wireName = wireName;
  }

  @Override
  public String wireName() {
    return wireName;
  }
}
