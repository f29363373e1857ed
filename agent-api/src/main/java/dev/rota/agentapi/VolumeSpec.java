package dev.rota.agentapi;

/**
 * A data volume a {@code qemu} VM mounts: a blank disk of its own, kept on the worker (with the
 * VM's persistent disk) until the volume is deleted, whatever becomes of the VM.
 *
 * @param id the volume's name on its worker ({@code <name>-v<number>}), new for each volume made
 *     under that name
 * @param name the volume's name, which the guest sees as its disk's serial ({@code
 *     /dev/disk/by-id/virtio-<name>})
 * @param sizeGi its size in GiB
 * @param mountPath where a guest with cloud-init mounts it (formatted ext4 when blank); null: the
 *     guest mounts it itself
 * @param token a {@link DiskToken} for this volume on the worker it is copied from ({@link
 *     DiskSpec#from}); null when it is not copied, or that agent asks none
 */
public record VolumeSpec(String id, String name, int sizeGi, String mountPath, String token) {

  /** A volume's name: a DNS label short enough to be a virtio disk's serial (20 characters). */
  public static final java.util.regex.Pattern NAME =
      java.util.regex.Pattern.compile("^[a-z0-9]([a-z0-9-]{0,18}[a-z0-9])?$");

  /** A volume's id on its worker, {@code <name>-v<number>}: never a VM disk's. */
  public static final java.util.regex.Pattern ID =
      java.util.regex.Pattern.compile("^[a-z0-9]([a-z0-9-]{0,18}[a-z0-9])?-v[0-9]{1,19}$");

  public static String idOf(String name, long number) {
    return name + "-v" + number;
  }
}
