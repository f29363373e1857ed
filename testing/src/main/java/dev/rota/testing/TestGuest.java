package dev.rota.testing;

import java.nio.file.Path;

/**
 * The tiny test guest that {@code .ci/qemu guest} builds from Debian's packages (a Debian kernel
 * and a busybox init), and QEMU, which {@code .ci/qemu install} installs: tests that boot real VMs
 * use them, and are skipped, saying why, on a machine that cannot have them. The guest prints
 * {@code ROTA-GUEST-UP cpus=N memory_mib=M} on its console, then does what {@code rota.test=} says
 * on its kernel command line or in its user data: {@code run} (until its power button), {@code
 * poweroff}, {@code exit:N}, {@code panic}.
 *
 * @param kernel {@code vmlinuz}, for a direct kernel boot
 * @param initrd {@code initrd.cpio}, its busybox init (uncompressed: one step less under emulation)
 * @param rawDisk a FAT disk that boots the same through SYSLINUX
 * @param qcow2Disk the same disk as qcow2
 */
public record TestGuest(Path kernel, Path initrd, Path rawDisk, Path qcow2Disk) {
  public static final String UP = "ROTA-GUEST-UP";

  /**
   * User data the guest runs at boot: a counter, a line a second, each with the boot's id: a guest
   * resumed rather than booted again counts on in the same boot ({@link #countsOn}).
   */
  public static final String COUNTER =
      "#!/bin/sh\n"
          + "boot=$(cat /proc/sys/kernel/random/boot_id)\n"
          + "i=0\n"
          + "while true; do i=$((i + 1)); echo \"count=$i boot=$boot\"; sleep 1; done\n";

  /**
   * Shell lines of user data that mount the guest's own boot disk (FAT, booted from an image) at
   * {@code /d}, its device in {@code $dev}, and count its boots there, in {@code $n}: what a test
   * writes there stays on the VM's disk.
   */
  public static final String COUNT_BOOTS_ON_DISK =
      """
      mkdir -p /d
      for dev in /dev/vd?; do
        mount -t vfat "$dev" /d 2>/dev/null || continue
        [ -f /d/syslinux.cfg ] && break
        umount /d
      done
      n=$(( $(cat /d/boots 2>/dev/null || echo 0) + 1 ))
      echo "$n" > /d/boots
      sync
      """;

  // A boot id is a whole UUID: a line still being written to the console is not counted yet.
  private static final java.util.regex.Pattern COUNT =
      java.util.regex.Pattern.compile(
          "count=(\\d+) boot=([0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})");

  /**
   * The line a guest running {@link #COUNTER} says next after the last one in {@code console}: the
   * next count, in the same boot.
   */
  public static String countsOn(String console) {
    int counted = 0;
    String bootId = null;
    for (java.util.regex.Matcher m = COUNT.matcher(console); m.find(); ) {
      counted = Integer.parseInt(m.group(1));
      bootId = m.group(2);
    }
    if (bootId == null) {
      throw new AssertionError("the guest has not counted yet: " + console);
    }
    return "count=" + (counted + 1) + " boot=" + bootId;
  }

  /**
   * A VM's {@code guest} field (as its JSON takes it) that boots this kernel alone, counting a line
   * a second ({@link #COUNTER}): its whole state in memory.
   */
  public java.util.Map<String, Object> counting() {
    return java.util.Map.of(
        "kernel",
        kernel().toUri().toString(),
        "initrd",
        initrd().toUri().toString(),
        "kernelArgs",
        "quiet",
        "userData",
        COUNTER);
  }

  /** The guest, built on first use; skips the calling test when it cannot be had. */
  public static TestGuest get() {
    Path dir = Path.of(CiScript.run(".ci/qemu", "guest").needed("QEMU test guest"));
    return new TestGuest(
        dir.resolve("vmlinuz"),
        dir.resolve("initrd.cpio"),
        dir.resolve("disk.img"),
        dir.resolve("disk.qcow2"));
  }
}
