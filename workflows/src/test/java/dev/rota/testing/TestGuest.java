package dev.rota.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The tiny test guest that {@code .ci/qemu guest} builds from Debian's packages (a Debian kernel
 * and a busybox init), and QEMU, which {@code .ci/qemu install} installs: tests that boot real VMs
 * use them, and are skipped, saying why, on a machine that cannot have them. The guest prints
 * {@code ROTA-GUEST-UP cpus=N memory_mib=M} on its console, then does what {@code rota.test=} says
 * on its kernel command line or in its user data: {@code run} (until its power button), {@code
 * poweroff}, {@code exit:N}, {@code panic}.
 *
 * @param kernel {@code vmlinuz}, for a direct kernel boot
 * @param initrd {@code initrd.img}, its busybox init
 * @param rawDisk a FAT disk that boots the same through SYSLINUX
 * @param qcow2Disk the same disk as qcow2
 */
public record TestGuest(Path kernel, Path initrd, Path rawDisk, Path qcow2Disk) {
  public static final String UP = "ROTA-GUEST-UP";

  /** The guest, built on first use; skips the calling test when it cannot be had. */
  public static TestGuest get() {
    Path root = Path.of(System.getProperty("rota.root", "..")).toAbsolutePath().normalize();
    String folder = run(root, ".ci/qemu", "guest");
    Path dir = Path.of(folder);
    return new TestGuest(
        dir.resolve("vmlinuz"),
        dir.resolve("initrd.img"),
        dir.resolve("disk.img"),
        dir.resolve("disk.qcow2"));
  }

  private static String run(Path root, String script, String... args) {
    List<String> command =
        new java.util.ArrayList<>(List.of("bash", root.resolve(script).toString()));
    command.addAll(List.of(args));
    try {
      Path err = Files.createTempFile("rota-test-guest", ".err");
      Process p =
          new ProcessBuilder(command).directory(root.toFile()).redirectError(err.toFile()).start();
      List<String> lines =
          new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
      boolean done = p.waitFor(10, TimeUnit.MINUTES);
      List<String> said = Files.readAllLines(err);
      Files.delete(err);
      Assumptions.assumeTrue(
          done && p.exitValue() == 0 && !lines.isEmpty(),
          "no QEMU test guest could be had ("
              + (said.isEmpty() ? "no output" : said.get(said.size() - 1))
              + "): VM tests are skipped");
      return lines.get(lines.size() - 1);
    } catch (IOException e) {
      Assumptions.abort("no QEMU test guest could be had (" + e + ")");
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      Assumptions.abort("interrupted while building the test guest");
      return null;
    }
  }
}
