package dev.rota.agent.runtimes;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.agentapi.NetworkSpec;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rules that hold a guest to its network mode, mode by mode. */
class EgressRulesTest {
  private static final String P4 =
      "{ 0.0.0.0/8, 10.0.0.0/8, 100.64.0.0/10, 127.0.0.0/8, 169.254.0.0/16, 172.16.0.0/12,"
          + " 192.0.0.0/24, 192.168.0.0/16, 198.18.0.0/15, 224.0.0.0/3 }";
  private static final String P6 =
      "{ ::/127, ::ffff:0:0/96, 64:ff9b:1::/48, fc00::/7, fe80::/10, ff00::/8 }";

  private static List<String> rules(String script) {
    return script.lines().toList();
  }

  @Test
  void theInternetIsEverythingButTheWorkerAndPrivateAddressesUnlessItsOperatorAllowsThem() {
    assertEquals(
        List.of(
            "create chain inet rota_guests guest_1879048192",
            "add rule inet rota_guests guest_1879048192 ct state established,related accept",
            "add rule inet rota_guests guest_1879048192 meta l4proto { tcp, udp } th dport 53 ip daddr { 10.0.0.53/32 } accept",
            "add rule inet rota_guests guest_1879048192 ip daddr { 10.99.0.1/32 } accept",
            "add rule inet rota_guests guest_1879048192 fib daddr type local reject",
            "add rule inet rota_guests guest_1879048192 ip daddr " + P4 + " reject",
            "add rule inet rota_guests guest_1879048192 ip6 daddr " + P6 + " reject",
            "add rule inet rota_guests guest_1879048192 accept",
            "add element inet rota_guests guests { 1879048192 : jump guest_1879048192 }"),
        rules(
            EgressRules.claim(
                1879048192, null, List.of(), List.of("10.99.0.1/32"), List.of("10.0.0.53/32"))));
  }

  @Test
  void anAllowListLetsOnlyItsOwnAddressesThroughAndNeverOpensWhatIsProtected() {
    assertEquals(
        List.of(
            "create chain inet rota_guests guest_7",
            "add rule inet rota_guests guest_7 ct state established,related accept",
            "add rule inet rota_guests guest_7 meta l4proto { tcp, udp } th dport 53 ip6 daddr { fd00::53/128 } accept",
            "add rule inet rota_guests guest_7 ip daddr != { 203.0.113.7/32, 169.254.169.254/32 } reject",
            "add rule inet rota_guests guest_7 meta nfproto ipv6 reject",
            "add rule inet rota_guests guest_7 fib daddr type local reject",
            "add rule inet rota_guests guest_7 ip daddr " + P4 + " reject",
            "add rule inet rota_guests guest_7 ip6 daddr " + P6 + " reject",
            "add rule inet rota_guests guest_7 accept",
            "add element inet rota_guests guests { 7 : jump guest_7 }"),
        rules(
            EgressRules.claim(
                7,
                new NetworkSpec("allow", List.of("203.0.113.7/32", "169.254.169.254/32")),
                List.of("203.0.113.7/32", "169.254.169.254/32"),
                List.of(),
                List.of("fd00::53/128"))));
  }

  @Test
  void aGuestCutOffHasOnlyRepliesOnItsForwardedPorts() {
    assertEquals(
        List.of(
            "create chain inet rota_guests guest_7",
            "add rule inet rota_guests guest_7 ct state established,related accept",
            "add rule inet rota_guests guest_7 reject",
            "add element inet rota_guests guests { 7 : jump guest_7 }"),
        rules(
            EgressRules.claim(
                7,
                new NetworkSpec("none", null),
                List.of(),
                List.of("10.99.0.1/32"),
                List.of("10.0.0.53/32"))));
  }

  @Test
  void aGuestsUserIsGivenBackWithItsRules() {
    assertEquals(
        List.of(
            "delete element inet rota_guests guests { 7 }",
            "flush chain inet rota_guests guest_7",
            "delete chain inet rota_guests guest_7"),
        rules(EgressRules.release(7)));
  }

  @Test
  void theWorkersResolversAreReadFromItsResolvConf(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path conf = dir.resolve("resolv.conf");
    java.nio.file.Files.writeString(
        conf,
        "# local\nnameserver 127.0.0.53\nnameserver fe80::1%eth0\nsearch example.org\nnameserver bogus\n");
    assertEquals(List.of("127.0.0.53/32", "fe80::1/128"), GuestConfinement.resolvers(conf));
  }
}
