package dev.rota.agent.runtimes;

import dev.rota.agent.machine.Executables;
import dev.rota.agent.machine.Tools;
import dev.rota.agentapi.EgressTarget;
import dev.rota.agentapi.NetworkSpec;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a worker holds each guest's QEMU: a user of its own (a uid of {@code ROTA_AGENT_GUEST_UIDS}
 * that no other guest of the machine holds, no capabilities, no new privileges), a control group of
 * its own with the VM's CPU quota and a memory limit of its RAM plus QEMU's overhead, and nftables
 * rules by that uid that keep its connections to its network mode ({@link EgressRules}). QEMU's own
 * seccomp filter ({@code -sandbox}) is on wherever it runs, confined or not.
 *
 * <p>It needs root (to switch users, make groups and rules), {@code setpriv}, {@code nft} and
 * control groups. A worker without one of them runs guests as the agent's user and unfiltered, and
 * says why in its notices; VMs that require isolation are then not placed there (the worker's
 * {@link Isolation#GUEST_LABEL} says {@code none}).
 */
public final class GuestConfinement {
  /** Where a guest's uid is written in its task's folder, to be given back with the task. */
  static final String UID_FILE = "guest-uid";

  /** QEMU's own memory beyond the guest's RAM: devices, its heap, the network stack. */
  static final long OVERHEAD_MIB = 256;

  /** QEMU's translation cache under software emulation, capped at this ({@code tb-size}). */
  static final long TCG_CACHE_MIB = 256;

  private static final Pattern CLAIMED = Pattern.compile("(\\d+) : jump");

  private final String reason;
  private final Cgroups cgroups;
  private final int firstUid;
  private final int lastUid;
  private final List<String> operatorAllowed;

  private GuestConfinement(
      String reason, Cgroups cgroups, int firstUid, int lastUid, List<String> operatorAllowed) {
    this.reason = reason;
    this.cgroups = cgroups;
    this.firstUid = firstUid;
    this.lastUid = lastUid;
    this.operatorAllowed = operatorAllowed;
  }

  /** A worker that runs guests as its own user, unfiltered: {@code reason} says why. */
  static GuestConfinement none(String reason) {
    return new GuestConfinement(reason, Cgroups.none(reason), 0, -1, List.of());
  }

  /**
   * What this machine allows; never throws.
   *
   * @param uids the range guests' users are taken from, {@code first-last}
   * @param allowed the operator's allow-list ({@code ROTA_AGENT_GUEST_ALLOW}), host names resolved
   *     here
   */
  public static GuestConfinement detect(
      Cgroups cgroups, Path dataDir, int[] uids, List<String> allowed) {
    if (!root()) {
      return none(
          "the agent does not run as root, which switching a guest's QEMU to a user of its own needs");
    }
    if (Executables.find(
            "setpriv", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"), Path.of("."))
        .isEmpty()) {
      return none("setpriv is not installed (Debian: util-linux)");
    }
    if (cgroups.kind() == Cgroups.Kind.NONE) {
      return none("no control groups: " + cgroups.reason());
    }
    List<String> operator;
    try {
      operator = resolve(allowed);
    } catch (IOException e) {
      return none("ROTA_AGENT_GUEST_ALLOW: " + e.getMessage());
    }
    try {
      Tools.run(
          List.of("nft", "-f", "-"),
          "nft is not installed (Debian: nftables)",
          EgressRules.table());
      String output =
          Tools.run(
              List.of("nft", "list", "chain", "inet", "rota_guests", "output"),
              "nft is not installed (Debian: nftables)",
              "");
      if (!output.contains("@guests")) {
        Tools.run(List.of("nft", "-f", "-"), "nft is not installed", EgressRules.dispatch());
      }
    } catch (IOException e) {
      return none("cannot make the guests' nftables rules: " + e.getMessage());
    }
    try {
      passable(dataDir);
    } catch (IOException e) {
      return none("cannot let guests' users into the agent's data folder: " + e.getMessage());
    }
    return new GuestConfinement(null, cgroups, uids[0], uids[1], operator);
  }

  /** Whether guests run confined here. */
  public boolean available() {
    return reason == null;
  }

  /** Why guests run unconfined here; null when they are confined. */
  public String reason() {
    return reason;
  }

  /**
   * Holds a guest about to start: claims its user and rules, makes its folder {@code guest} (what
   * QEMU writes: its sockets, disks) that user's, and its control group. Unconfined, only checks
   * that its network mode can be kept without rules.
   *
   * @return its user, or null when guests run unconfined here
   */
  Integer confine(String taskId, Path dir, NetworkSpec network, long cpus, long memoryMib)
      throws IOException {
    NetworkSpec mode = NetworkSpec.orDefault(network);
    if (!available()) {
      if (mode.egress().equals(NetworkSpec.ALLOW)) {
        throw new IOException(
            "this worker cannot hold a guest to an allow-list: guests run unconfined here ("
                + reason
                + ")");
      }
      return null;
    }
    List<String> allowed =
        mode.egress().equals(NetworkSpec.ALLOW) ? resolve(mode.allowOrNone()) : List.of();
    List<String> resolvers = resolvers(Path.of("/etc/resolv.conf"));
    int uid = claim(mode, allowed, resolvers);
    try {
      Files.writeString(
          dir.resolve(UID_FILE), Integer.toUnsignedString(uid), StandardCharsets.UTF_8);
      Set<PosixFilePermission> passable = Files.getPosixFilePermissions(dir);
      if (passable.add(PosixFilePermission.OTHERS_EXECUTE)) {
        Files.setPosixFilePermissions(dir, passable);
      }
      Path guest = GuestFiles.folder(dir);
      Files.createDirectories(guest);
      own(guest, uid);
      // The console's log is the agent's file that QEMU appends to.
      Path log = dir.resolve("stdout.log");
      if (!Files.exists(log)) {
        Files.createFile(log);
      }
      own(log, uid);
      cgroups.create(taskId, cpus, memoryMib);
      return uid;
    } catch (IOException e) {
      release(taskId, dir);
      throw e;
    }
  }

  /**
   * QEMU's command run as {@code uid}, in the task's control group, without capabilities or a way
   * to gain any; {@code devicesGroup} (the group of {@code /dev/kvm}), when not null, kept.
   */
  List<String> wrap(String taskId, int uid, Integer devicesGroup, List<String> argv) {
    List<String> run =
        new ArrayList<>(
            List.of(
                "setpriv",
                "--reuid=" + Integer.toUnsignedString(uid),
                "--regid=" + Integer.toUnsignedString(uid),
                devicesGroup == null ? "--clear-groups" : "--groups=" + devicesGroup,
                "--inh-caps=-all",
                "--bounding-set=-all",
                "--no-new-privs",
                "--"));
    run.addAll(argv);
    return Cgroups.joining(cgroups.existing(taskId), run);
  }

  /** The memory limit of a guest of {@code ramMib}: its RAM and QEMU's own. */
  static long memoryLimitMib(long ramMib, boolean tcg) {
    return ramMib + OVERHEAD_MIB + (tcg ? TCG_CACHE_MIB : 0);
  }

  /** Gives back what {@link #confine} took for the task whose folder is {@code dir}. */
  void release(String taskId, Path dir) {
    Path file = dir.resolve(UID_FILE);
    if (!Files.exists(file)) {
      return;
    }
    cgroups.remove(taskId);
    try {
      int uid = Integer.parseUnsignedInt(Files.readString(file, StandardCharsets.UTF_8).strip());
      Tools.run(List.of("nft", "-f", "-"), "nft is not installed", EgressRules.release(uid));
      Files.deleteIfExists(file);
    } catch (IOException | NumberFormatException e) {
      // its rules are gone already (the machine restarted), or tried again at its removal
    }
  }

  /** Whether the kernel killed the guest's QEMU for going over its memory limit. */
  boolean oomKilled(String taskId) {
    return available() && cgroups.oomKilled(taskId);
  }

  /** Takes the first uid of the range no guest of this machine holds, with its rules. */
  private int claim(NetworkSpec mode, List<String> allowed, List<String> resolvers)
      throws IOException {
    for (int attempt = 0; attempt < 8; attempt++) {
      Set<Long> held = new TreeSet<>();
      Matcher m =
          CLAIMED.matcher(
              Tools.run(
                  List.of("nft", "list", "map", "inet", "rota_guests", "guests"),
                  "nft is not installed",
                  ""));
      while (m.find()) {
        held.add(Long.parseLong(m.group(1)));
      }
      long free = Integer.toUnsignedLong(firstUid);
      while (held.contains(free)) {
        free++;
      }
      if (free > Integer.toUnsignedLong(lastUid)) {
        throw new IOException(
            "every guest user of ROTA_AGENT_GUEST_UIDS is taken by a guest of this machine");
      }
      int uid = (int) free;
      try {
        Tools.run(
            List.of("nft", "-f", "-"),
            "nft is not installed",
            EgressRules.claim(uid, mode, allowed, operatorAllowed, resolvers));
        return uid;
      } catch (IOException e) {
        if (!e.getMessage().contains("File exists")) {
          throw new IOException("cannot make the guest's network rules: " + e.getMessage());
        }
        // another agent of this machine took it meanwhile
      }
    }
    throw new IOException(
        "cannot claim a guest user: other agents of this machine keep taking them");
  }

  /** CIDRs of every entry: a CIDR as it is, a host name as each address it resolves to now. */
  static List<String> resolve(List<String> entries) throws IOException {
    List<String> cidrs = new ArrayList<>();
    for (String entry : entries) {
      EgressTarget target;
      try {
        target = EgressTarget.parse(entry);
      } catch (IllegalArgumentException e) {
        throw new IOException(e.getMessage());
      }
      if (!target.host()) {
        cidrs.add(target.text());
        continue;
      }
      try {
        for (InetAddress a : InetAddress.getAllByName(target.text())) {
          cidrs.add(
              a.getHostAddress().replaceAll("%.*$", "")
                  + (a.getAddress().length == 4 ? "/32" : "/128"));
        }
      } catch (UnknownHostException e) {
        throw new IOException("cannot resolve " + target.text() + " for the guest's allow-list");
      }
    }
    return List.copyOf(new TreeSet<>(cidrs));
  }

  /** The worker's DNS servers, which every guest that may reach out asks through QEMU. */
  static List<String> resolvers(Path resolvConf) {
    List<String> found = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(resolvConf, StandardCharsets.UTF_8)) {
        String[] words = line.strip().split("\\s+");
        if (words.length >= 2 && words[0].equals("nameserver")) {
          try {
            EgressTarget server = EgressTarget.parse(words[1].replaceAll("%.*$", ""));
            if (!server.host()) {
              found.add(server.text());
            }
          } catch (IllegalArgumentException e) {
            // not an address: skipped
          }
        }
      }
    } catch (IOException e) {
      // no resolver configuration: QEMU finds none either
    }
    return List.copyOf(found);
  }

  /** Makes {@code path} the guest's: its uid's, and the group of that number. */
  static void own(Path path, int uid) throws IOException {
    Files.setAttribute(path, "unix:uid", uid);
    Files.setAttribute(path, "unix:gid", uid);
  }

  /**
   * Lets other users pass through the agent's own folders (not read them), as a guest's QEMU must
   * to reach its own folder and its images; QEMU is given paths from its task's folder, so the
   * folders above the data folder need not let it.
   */
  private static void passable(Path dataDir) throws IOException {
    Path dir = dataDir.toAbsolutePath().normalize();
    for (Path d :
        List.of(dir, dir.resolve("tasks"), dir.resolve("images"), dir.resolve("images/blobs"))) {
      Files.createDirectories(d);
      Set<PosixFilePermission> p = Files.getPosixFilePermissions(d);
      if (p.add(PosixFilePermission.OTHERS_EXECUTE)) {
        Files.setPosixFilePermissions(d, p);
      }
    }
  }

  private static boolean root() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Uid:")) {
          return line.split("\\s+")[2].equals("0"); // the effective uid
        }
      }
    } catch (IOException e) {
      // not Linux
    }
    return false;
  }
}
