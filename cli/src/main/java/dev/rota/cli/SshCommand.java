package dev.rota.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The ssh command line {@code rota vm ssh} runs: the user's ssh, through {@code rota vm connect} as
 * its ProxyCommand, so that only the server need be reachable. The guest's host key is kept under
 * an alias of the VM's submission, in Rota's own known_hosts ({@link GuestHostKeys}), apart from
 * any machine of that name.
 */
final class SshCommand {
  private SshCommand() {}

  /** How to run this CLI again: the launcher's JVM and jar. */
  static List<String> self() {
    String java = ProcessHandle.current().info().command().orElse("java");
    try {
      Path jar =
          Path.of(SshCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return List.of(java, "-jar", jar.toString());
    } catch (java.net.URISyntaxException | RuntimeException e) {
      return List.of("rota");
    }
  }

  /**
   * @param knownHosts where the guests' host keys are kept ({@link GuestHostKeys})
   * @param alias the VM's submission's name there
   */
  static List<String> argv(
      String ssh,
      List<String> self,
      String vm,
      String port,
      String user,
      String identity,
      Path knownHosts,
      String alias,
      List<String> command) {
    List<String> proxy = new ArrayList<>(self);
    proxy.addAll(List.of("vm", "connect", vm, port));
    List<String> argv = new ArrayList<>(List.of(ssh, "-o", "ProxyCommand=" + shell(proxy)));
    argv.addAll(
        List.of(
            "-o",
            "HostKeyAlias=" + alias,
            "-o",
            "UserKnownHostsFile=" + knownHosts,
            "-o",
            "StrictHostKeyChecking=accept-new",
            "-o",
            "HashKnownHosts=no"));
    if (identity != null) {
      argv.addAll(List.of("-i", identity));
    }
    if (user != null) {
      argv.addAll(List.of("-l", user));
    }
    argv.add(vm);
    argv.addAll(command);
    return argv;
  }

  /** Words as sh reads them back: each in single quotes. */
  static String shell(List<String> words) {
    List<String> quoted = new ArrayList<>();
    for (String w : words) {
      quoted.add("'" + w.replace("'", "'\\''") + "'");
    }
    return String.join(" ", quoted);
  }
}
