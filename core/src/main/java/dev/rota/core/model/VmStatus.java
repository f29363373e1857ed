package dev.rota.core.model;

/** A VM's status as the API spells it. */
public enum VmStatus implements WireName {
  PENDING("pending"),
  SCHEDULED("scheduled"),
  RUNNING("running"),
  STOPPING("stopping"),
  STOPPED("stopped"),
  FAILED("failed"),
  /** Its memory is being saved on its worker; its task ends once it is. */
  SUSPENDING("suspending"),
  /** Its memory is saved on its worker, and no task runs: a start resumes it there. */
  SUSPENDED("suspended"),
  /** Its guest is paused where it runs: its QEMU, memory and room on its worker kept. */
  PAUSED("paused");

  /** The statuses in which a VM holds its worker's resources, as stored. */
  public static final java.util.List<String> HOLDING_WORKER =
      java.util.List.of(
          SCHEDULED.wireName,
          RUNNING.wireName,
          STOPPING.wireName,
          SUSPENDING.wireName,
          PAUSED.wireName);

  private final String wireName;

  VmStatus(String wireName) {
    this.wireName = wireName;
  }

  @Override
  public String wireName() {
    return wireName;
  }
}
