package dev.rota.agentapi;

/**
 * How a VM's guest is booted and configured, for the {@code qemu} runtime; every part optional.
 *
 * @param kernel an image address of a kernel to boot directly (QEMU's {@code -kernel}) instead of
 *     the disk's boot loader
 * @param initrd an image address of its initial RAM disk; only with {@code kernel}
 * @param kernelArgs the kernel's command line; only with {@code kernel}
 * @param userData cloud-init user data, handed to the guest on a NoCloud seed disk (label {@code
 *     CIDATA})
 * @param sshKeys OpenSSH public keys for the guest's default user (the seed's {@code public-keys})
 * @param startupScript a script cloud-init runs once, at the end of the guest's first boot (a part
 *     of the seed's user data beside {@code userData})
 */
public record GuestSpec(
    String kernel,
    String initrd,
    String kernelArgs,
    String userData,
    java.util.List<String> sshKeys,
    String startupScript) {
  public static final GuestSpec NONE = new GuestSpec(null, null, null, null, null, null);

  /** Whether the guest is given anything through cloud-init (a seed disk). */
  public boolean seeded() {
    return userData != null || startupScript != null || (sshKeys != null && !sshKeys.isEmpty());
  }

  /** Whether {@code guest} says nothing (static, so that no serializer takes it for a property). */
  public static boolean none(GuestSpec guest) {
    return guest == null
        || (guest.kernel == null
            && guest.initrd == null
            && guest.kernelArgs == null
            && guest.userData == null
            && (guest.sshKeys == null || guest.sshKeys.isEmpty())
            && guest.startupScript == null);
  }
}
