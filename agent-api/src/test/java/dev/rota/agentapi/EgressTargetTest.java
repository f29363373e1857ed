package dev.rota.agentapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Entries of an egress allow-list, as written and as kept. */
class EgressTargetTest {
  @Test
  void cidrsAndAddressesAreKeptCanonicalAndNamesAsNames() {
    String[][] table = {
      {"203.0.113.7", "203.0.113.7/32"},
      {"203.0.113.7/24", "203.0.113.0/24"},
      {"0.0.0.0/0", "0.0.0.0/0"},
      {"2001:DB8::1", "2001:db8::1/128"},
      {"2001:db8:0:0:1::/64", "2001:db8::/64"},
      {"::/0", "::/0"},
      {"fe80::1/10", "fe80::/10"},
      {"Api.GitHub.com", "api.github.com"},
      {"registry-1.docker.io", "registry-1.docker.io"},
      {"1password.example", "1password.example"},
      {"db", "db"},
    };
    for (String[] row : table) {
      assertEquals(row[1], EgressTarget.parse(row[0]).text(), row[0]);
    }
    assertEquals(true, EgressTarget.parse("example.org").host());
    assertEquals(false, EgressTarget.parse("10.0.0.1").host());
  }

  @Test
  void anythingElseIsRefusedSayingWhat() {
    String[][] table = {
      {"10.0.0.0/33", "has a prefix length that is not 0 to 32"},
      {"2001:db8::/129", "has a prefix length that is not 0 to 128"},
      {"10.0.0.0/x", "has a prefix length that is not 0 to 32"},
      {"300.1.1.1", "is not an IPv4 address"},
      {"1.2.3", "is neither a CIDR"},
      {"exa mple.org", "is neither a CIDR"},
      {"example.org/24", "is neither a CIDR"},
      {"-bad.example", "is neither a CIDR"},
      {"example.3com", "is neither a CIDR"},
      {String.join(".", java.util.Collections.nCopies(5, "a".repeat(60))), "is neither a CIDR"},
      {"2001:db8::zz", "is not an IPv6 address"},
      {" ", "is empty"},
      {"01.2.3.4", "is neither a CIDR"},
      {"::ffff:1.2.3.4", "is neither a CIDR"},
      {" 10.0.0.1", "is neither a CIDR"},
    };
    for (String[] row : table) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> EgressTarget.parse(row[0]), row[0]);
      assertEquals(true, e.getMessage().contains(row[1]), row[0] + ": " + e.getMessage());
    }
  }
}
