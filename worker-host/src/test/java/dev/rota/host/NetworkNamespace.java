package dev.rota.host;

import dev.rota.testing.Needs;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A network namespace joined to this one by a veth pair, {@code 10.231.N.1} on this side and {@code
 * 10.231.N.2} inside: a machine of its own on the network, whose link a test can cut and heal.
 * Needs root and iproute2's {@code ip} ({@code .ci/netns install}); a test that cannot have them is
 * skipped, saying why (under {@code CI=true} it fails). A name already held, by a test beside this
 * one or left by a run killed before its cleanup, is passed over for another.
 */
final class NetworkNamespace implements AutoCloseable {
  private final String name;
  private final String outside;
  private final int subnet;

  private NetworkNamespace(String name, String outside, int subnet) {
    this.name = name;
    this.outside = outside;
    this.subnet = subnet;
  }

  static NetworkNamespace create() {
    RealServices.networkNamespaces();
    String failed = null;
    for (int tries = 0; tries < 20; tries++) {
      int n = ThreadLocalRandom.current().nextInt(1, 250);
      String name = "rota-it-" + n;
      String outside = "rv" + n;
      failed = ip("netns", "add", name);
      if (held(failed)) {
        continue;
      }
      Needs.had(
          failed == null,
          "no network namespace could be made ("
              + failed
              + "): the partition test needs root and ip");
      NetworkNamespace ns = new NetworkNamespace(name, outside, n);
      String pair = ip("link", "add", outside, "type", "veth", "peer", "name", "rp" + n);
      if (pair != null) {
        ip("netns", "delete", name);
        if (held(pair)) {
          continue;
        }
        must(pair);
      }
      return ns.joined("rp" + n);
    }
    throw new IllegalStateException("no free network namespace name in 20 tries: " + failed);
  }

  /**
   * Whether a name was held already: by a test running beside this one, or left by a run killed
   * before it could remove it. Another name is tried.
   */
  private static boolean held(String failure) {
    return failure != null && failure.contains("File exists");
  }

  /** Moves the pair's {@code inside} end into the namespace and addresses both ends. */
  private NetworkNamespace joined(String inside) {
    try {
      must(ip("link", "set", inside, "netns", name));
      must(ip("addr", "add", hostAddress() + "/24", "dev", outside));
      must(ip("link", "set", outside, "up"));
      must(ip("netns", "exec", name, "ip", "addr", "add", address() + "/24", "dev", inside));
      must(ip("netns", "exec", name, "ip", "link", "set", inside, "up"));
      must(ip("netns", "exec", name, "ip", "link", "set", "lo", "up"));
      return this;
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  String name() {
    return name;
  }

  /** This side's address: what the namespace reaches this machine by. */
  String hostAddress() {
    return "10.231." + subnet + ".1";
  }

  /** The namespace's own address. */
  String address() {
    return "10.231." + subnet + ".2";
  }

  /** The link goes down: nothing passes either way. */
  void cut() {
    must(ip("link", "set", outside, "down"));
  }

  void heal() {
    must(ip("link", "set", outside, "up"));
  }

  @Override
  public void close() {
    ip("link", "delete", outside);
    ip("netns", "delete", name);
  }

  static void must(String failure) {
    if (failure != null) {
      throw new IllegalStateException(failure);
    }
  }

  /** Runs {@code ip}; null when it succeeded, else what it said. */
  static String ip(String... args) {
    List<String> command = new ArrayList<>(List.of("ip"));
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String said = new String(p.getInputStream().readAllBytes()).strip();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return String.join(" ", command) + " took over 30 s";
      }
      return p.exitValue() == 0 ? null : String.join(" ", command) + ": " + said;
    } catch (IOException e) {
      return String.join(" ", command) + ": " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }
}
