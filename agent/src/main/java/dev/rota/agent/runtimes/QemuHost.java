package dev.rota.agent.runtimes;

import dev.rota.agent.config.AgentConfig;
import dev.rota.agent.machine.Executables;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * QEMU on this worker: which binary runs guests of this machine's architecture, and which
 * accelerator it uses. KVM only when it really works: {@code /dev/kvm} can be there and not work
 * (nested virtualization without what a guest needs), so a probe guest ({@code kvm-probe.bin}: long
 * mode, paging, 128 MiB written) must run through under KVM within a deadline; otherwise guests run
 * under software emulation (TCG), several times slower.
 *
 * @param binary the {@code qemu-system-*} to run
 * @param imageTool {@code qemu-img}, which makes each VM's overlay disk
 * @param accel {@code kvm} or {@code tcg}
 * @param why how the accelerator was chosen, for the agent's start line
 */
public record QemuHost(Path binary, Path imageTool, String accel, String why) {
  private static final Logger log = LoggerFactory.getLogger(QemuHost.class);
  static final Duration PROBE_DEADLINE = Duration.ofSeconds(2);

  /** Runs {@link #imageTool} with {@code args}; an {@link IOException} says why it failed. */
  public void imageTool(String... args) throws java.io.IOException {
    List<String> command = new java.util.ArrayList<>(List.of(imageTool.toString()));
    command.addAll(List.of(args));
    dev.rota.agent.machine.Tools.run(command, "qemu-img is not installed");
  }

  /** The QEMU of this machine's architecture on the PATH, if both it and qemu-img are there. */
  public static Optional<Path[]> installed() {
    String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
    String qemu =
        "qemu-system-"
            + (arch.equals("amd64") ? "x86_64" : arch.equals("aarch64") ? "aarch64" : arch);
    Optional<Path> binary = onPath(qemu);
    Optional<Path> img = onPath("qemu-img");
    return binary.isPresent() && img.isPresent()
        ? Optional.of(new Path[] {binary.get(), img.get()})
        : Optional.empty();
  }

  public static AgentConfig.BadSetting missing() {
    return new AgentConfig.BadSetting(
        "ROTA_WORKER_RUNTIMES names qemu, but qemu-system-x86_64 and qemu-img are not "
            + "both on the PATH (Debian: apt-get install qemu-system-x86 qemu-utils)");
  }

  /**
   * Finds QEMU and chooses the accelerator: {@code auto} probes KVM, {@code kvm} and {@code tcg}
   * are used as told.
   */
  public static QemuHost of(String accel, Path scratch) {
    Path[] found = installed().orElseThrow(QemuHost::missing);
    return switch (accel) {
      case "kvm", "tcg" ->
          new QemuHost(found[0], found[1], accel, "ROTA_AGENT_QEMU_ACCEL=" + accel);
      default -> {
        String probe = probeKvm(found[0], scratch);
        yield new QemuHost(
            found[0], found[1], probe == null ? "kvm" : "tcg", probe == null ? "KVM works" : probe);
      }
    };
  }

  /** Null when KVM ran the probe guest through in time; else why it is not used. */
  static String probeKvm(Path qemu, Path scratch) {
    Path kvm = Path.of("/dev/kvm");
    if (!Files.exists(kvm)) {
      return "no /dev/kvm";
    }
    if (!Files.isReadable(kvm) || !Files.isWritable(kvm)) {
      return "/dev/kvm is not readable and writable by the agent";
    }
    Path kernel = scratch.resolve("kvm-probe.bin");
    try (InputStream in = QemuHost.class.getResourceAsStream("kvm-probe.bin")) {
      Files.createDirectories(scratch);
      Files.write(kernel, in.readAllBytes());
      Process p =
          new ProcessBuilder(
                  qemu.toString(),
                  "-machine",
                  "pc,accel=kvm",
                  "-cpu",
                  "host",
                  "-m",
                  "160",
                  "-nodefaults",
                  "-no-user-config",
                  "-display",
                  "none",
                  "-kernel",
                  kernel.toString(),
                  "-device",
                  "isa-debug-exit,iobase=0xf4,iosize=0x01")
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      long started = System.nanoTime();
      if (!p.waitFor(PROBE_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly().waitFor();
        return "/dev/kvm is there, but a probe guest did not finish under KVM within "
            + PROBE_DEADLINE.toSeconds()
            + " s";
      }
      if (p.exitValue() != 3) {
        return "/dev/kvm is there, but QEMU could not run a probe guest under KVM (exit code "
            + p.exitValue()
            + ")";
      }
      log.debug("KVM probe ran through in {} ms", (System.nanoTime() - started) / 1_000_000);
      return null;
    } catch (IOException e) {
      return "the KVM probe could not run: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "the KVM probe was interrupted";
    } finally {
      try {
        Files.deleteIfExists(kernel);
      } catch (IOException e) {
        // left in the agent's scratch folder
      }
    }
  }

  /**
   * The machine: no graphics, so that the firmware writes to the serial console (the VM's log); the
   * CPU model the host's own under KVM, everything TCG can emulate otherwise.
   */
  List<String> machine() {
    return accel.equals("kvm")
        ? List.of("-machine", "q35,accel=kvm,graphics=off", "-cpu", "host")
        : List.of(
            "-machine",
            "q35,graphics=off",
            "-accel",
            "tcg,tb-size=" + GuestConfinement.TCG_CACHE_MIB,
            "-cpu",
            "max");
  }

  /**
   * The group that may open {@code /dev/kvm}, which a guest's QEMU keeps when it runs as a user of
   * its own; null under software emulation.
   */
  Integer devicesGroup() {
    if (!accel.equals("kvm")) {
      return null;
    }
    try {
      return (Integer) Files.getAttribute(Path.of("/dev/kvm"), "unix:gid");
    } catch (IOException | UnsupportedOperationException e) {
      return null;
    }
  }

  private static Optional<Path> onPath(String name) {
    return Executables.find(
        name, System.getenv().getOrDefault("PATH", "/usr/bin:/bin"), Path.of("."));
  }
}
