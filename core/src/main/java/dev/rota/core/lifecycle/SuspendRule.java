package dev.rota.core.lifecycle;

/**
 * Which VMs can be suspended: a {@code qemu} VM whose memory comes back to the disk it left, so one
 * with a persistent disk or booted from a kernel without a disk, and not a set's replica (its set
 * keeps it running); and which can be paused in place.
 */
public final class SuspendRule {
  private SuspendRule() {}

  /**
   * Why a VM of this spec cannot be paused in place (its QEMU and disk stay, so any {@code qemu} VM
   * but a set's replica can), or null when it can.
   */
  public static String pauseRefusal(String runtime, String set) {
    if (!"qemu".equals(runtime)) {
      return "only qemu VMs can be paused: a " + runtime + " VM has no guest to pause";
    }
    if (set != null) {
      return "it is a replica of set " + set + ", which keeps its replicas running";
    }
    return null;
  }

  /** Why a VM of this spec cannot be suspended, or null when it can. */
  public static String refusal(String runtime, String image, boolean persistentDisk, String set) {
    if (!"qemu".equals(runtime)) {
      return "only qemu VMs can be suspended: a " + runtime + " VM has no memory to save";
    }
    if (set != null) {
      return "it is a replica of set " + set + ", which keeps its replicas running";
    }
    if (image != null && !image.isBlank() && !persistentDisk) {
      return "its disk goes with its task (disk.persistent is false): its memory would come back"
          + " to a fresh disk";
    }
    return null;
  }
}
