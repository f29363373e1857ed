package dev.rota.api.vms;

import dev.rota.agentapi.GuestSpec;
import dev.rota.api.problem.Problems;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What a {@code qemu} VM's spec must say: something to boot, as addresses its agent can fetch (the
 * disk also from an OCI registry).
 */
public final class GuestChecks {
  /**
   * What a worker's image cache fetches: an https, http or file address, its content optionally
   * pinned.
   */
  static final Pattern IMAGE = Pattern.compile(dev.rota.api.Limits.IMAGE_ADDRESS);

  private static final String IMAGE_MESSAGE =
      "must be an https://, http:// or file:// address, optionally pinned with @sha256:<64 hex digits>";

  private static final Pattern DISK = Pattern.compile(dev.rota.api.Limits.DISK_IMAGE);

  private GuestChecks() {}

  static void check(String field, String image, List<String> command, GuestSpec guest) {
    GuestSpec g = guest == null ? GuestSpec.NONE : guest;
    if (!command.isEmpty()) {
      throw Problems.badRequest(
          field + "command",
          "is not run by the qemu runtime, which boots the VM's image: "
              + "give the guest its work in guest.userData (cloud-init) or guest.kernelArgs");
    }
    if (blank(image) && blank(g.kernel())) {
      throw Problems.badRequest(
          field + "image",
          "is required for the qemu runtime (the VM's boot disk), "
              + "unless guest.kernel names a kernel to boot directly");
    }
    if (blank(g.kernel()) && !blank(g.initrd())) {
      throw Problems.badRequest(
          field + "guest.initrd", "is booted with guest.kernel: give the kernel too");
    }
    if (blank(g.kernel()) && !blank(g.kernelArgs())) {
      throw Problems.badRequest(
          field + "guest.kernelArgs", "is the command line of guest.kernel: give the kernel too");
    }
    disk(field + "image", image);
    address(field + "guest.kernel", g.kernel());
    address(field + "guest.initrd", g.initrd());
  }

  /** A disk image as a worker's cache fetches it: an address, or an image in an OCI registry. */
  public static void disk(String field, String image) {
    if (!blank(image) && !DISK.matcher(image).matches()) {
      throw Problems.badRequest(
          field, dev.rota.api.Limits.DISK_IMAGE_MESSAGE + ", got \"" + image + "\"");
    }
  }

  private static void address(String field, String value) {
    if (!blank(value) && !IMAGE.matcher(value).matches()) {
      throw Problems.badRequest(field, IMAGE_MESSAGE + ", got \"" + value + "\"");
    }
  }

  /**
   * An empty string is no value (the API's document says so); anything else is checked as given.
   */
  private static boolean blank(String s) {
    return s == null || s.isEmpty();
  }
}
