package dev.rota.agent.runtimes;

import dev.rota.agentapi.NetworkSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * The nftables rules that hold a guest to its network mode. A guest's QEMU runs as a user of its
 * own ({@link GuestConfinement}), and every connection its user-mode network stack opens on the
 * guest's behalf is a socket of that user: the table's output chain sends each such packet to the
 * guest's own chain by its socket's uid. That chain lets through replies (the VM's forwarded ports,
 * connections made to it) and the worker's DNS servers (the guest's resolver at 10.0.2.3 asks
 * them), then, in order: outside the VM's allow-list, nothing; what the worker's operator allows,
 * everything; the worker itself (every address it holds, loopback included), link-local, private,
 * shared, multicast and reserved addresses, nothing; the rest (the public internet) passes.
 *
 * <p>A guest of mode {@code none} gets the same chain ending in a refusal, beside QEMU's own {@code
 * restrict=on}. Pure: each method returns an {@code nft -f} script.
 */
final class EgressRules {
  static final String TABLE = "inet rota_guests";

  /** What no guest reaches unless the worker's operator allows it. */
  static final List<String> PROTECTED_V4 =
      List.of(
          "0.0.0.0/8",
          "10.0.0.0/8",
          "100.64.0.0/10",
          "127.0.0.0/8",
          "169.254.0.0/16",
          "172.16.0.0/12",
          "192.0.0.0/24",
          "192.168.0.0/16",
          "198.18.0.0/15",
          "224.0.0.0/3");

  static final List<String> PROTECTED_V6 =
      List.of("::/127", "::ffff:0:0/96", "64:ff9b:1::/48", "fc00::/7", "fe80::/10", "ff00::/8");

  private EgressRules() {}

  /** The table, its map of guests by uid and its output chain, made once per worker. */
  static String table() {
    return "add table "
        + TABLE
        + "\nadd map "
        + TABLE
        + " guests { type uid : verdict ; }\nadd chain "
        + TABLE
        + " output { type filter hook output priority 0 ; policy accept ; }\n";
  }

  /** The output chain's one rule, added when {@link #table()} finds the chain without it. */
  static String dispatch() {
    return "add rule " + TABLE + " output meta skuid vmap @guests\n";
  }

  /**
   * Claims {@code uid} for a guest and holds it to {@code network}, in one transaction: it fails,
   * changing nothing, when another guest of this machine holds the uid (its chain exists).
   *
   * @param allowed the VM's allow-list as CIDRs (host names resolved), for mode {@code allow}
   * @param operatorAllowed CIDRs the worker's operator lets every guest reach
   * @param resolvers the worker's DNS servers' addresses
   */
  static String claim(
      int uid,
      NetworkSpec network,
      List<String> allowed,
      List<String> operatorAllowed,
      List<String> resolvers) {
    String chain = chain(uid);
    List<String> rules = new ArrayList<>();
    rules.add("ct state established,related accept");
    String egress = NetworkSpec.orDefault(network).egress();
    if (egress.equals(NetworkSpec.NONE)) {
      rules.add("reject");
    } else {
      addSet(rules, "meta l4proto { tcp, udp } th dport 53 ip daddr", v4(resolvers), "accept");
      addSet(rules, "meta l4proto { tcp, udp } th dport 53 ip6 daddr", v6(resolvers), "accept");
      if (egress.equals(NetworkSpec.ALLOW)) {
        rules.add(outside("ip", v4(allowed)));
        rules.add(outside("ip6", v6(allowed)));
      }
      addSet(rules, "ip daddr", v4(operatorAllowed), "accept");
      addSet(rules, "ip6 daddr", v6(operatorAllowed), "accept");
      rules.add("fib daddr type local reject");
      addSet(rules, "ip daddr", PROTECTED_V4, "reject");
      addSet(rules, "ip6 daddr", PROTECTED_V6, "reject");
      rules.add("accept");
    }
    StringBuilder script = new StringBuilder("create chain " + TABLE + " " + chain + "\n");
    rules.forEach(
        r ->
            script
                .append("add rule ")
                .append(TABLE)
                .append(' ')
                .append(chain)
                .append(' ')
                .append(r)
                .append('\n'));
    script
        .append("add element ")
        .append(TABLE)
        .append(" guests { ")
        .append(uid)
        .append(" : jump ")
        .append(chain)
        .append(" }\n");
    return script.toString();
  }

  /** Gives {@code uid} back: its rules go, and its connections are no guest's any more. */
  static String release(int uid) {
    String chain = chain(uid);
    return "delete element "
        + TABLE
        + " guests { "
        + uid
        + " }\nflush chain "
        + TABLE
        + " "
        + chain
        + "\ndelete chain "
        + TABLE
        + " "
        + chain
        + "\n";
  }

  static String chain(int uid) {
    return "guest_" + Integer.toUnsignedString(uid);
  }

  /** Refuses what is outside {@code cidrs} of the family; all of it when there are none. */
  private static String outside(String family, List<String> cidrs) {
    return cidrs.isEmpty()
        ? "meta nfproto " + (family.equals("ip") ? "ipv4" : "ipv6") + " reject"
        : family + " daddr != { " + String.join(", ", cidrs) + " } reject";
  }

  private static void addSet(List<String> rules, String match, List<String> set, String verdict) {
    if (!set.isEmpty()) {
      rules.add(match + " { " + String.join(", ", set) + " } " + verdict);
    }
  }

  private static List<String> v4(List<String> addresses) {
    return addresses.stream().filter(a -> !a.contains(":")).toList();
  }

  private static List<String> v6(List<String> addresses) {
    return addresses.stream().filter(a -> a.contains(":")).toList();
  }
}
