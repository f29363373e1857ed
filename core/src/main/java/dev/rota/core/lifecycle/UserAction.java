package dev.rota.core.lifecycle;

import dev.rota.core.model.WireName;

/** What a user may ask of a VM besides deleting it. */
public enum UserAction implements WireName {
  STOP("stop"),
  START("start"),
  RESTART("restart"),
  SUSPEND("suspend"),
  /** Suspended in place: paused where it runs. */
  PAUSE("pause");

  private final String wireName;

  UserAction(String wireName) {
    this.wireName = wireName;
  }

  @Override
  public String wireName() {
    return wireName;
  }
}
