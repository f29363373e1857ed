package dev.rota.agentapi;

import java.math.BigInteger;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * One entry of an egress allow-list: a CIDR ({@code 203.0.113.0/24}, {@code 2001:db8::/32}), a
 * single address (a CIDR of its full length), or a host name, resolved by the agent when the VM
 * starts.
 *
 * @param text the entry in its canonical form: a CIDR with its host bits cleared, or a host name in
 *     lower case
 * @param host whether it is a host name
 */
public record EgressTarget(String text, boolean host) {
  private static final String OCTET = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
  private static final String H = "[0-9a-fA-F]{1,4}";
  private static final String V6 =
      "(H:){7}H|(H:){1,7}:|(H:){1,6}:H|(H:){1,5}(:H){1,2}|(H:){1,4}(:H){1,3}|(H:){1,3}(:H){1,4}"
              .replace("H", H)
          + "|(H:){1,2}(:H){1,5}|H:(:H){1,6}|:((:H){1,7}|:)".replace("H", H);

  /**
   * A DNS name whose last label begins with a letter, as every top-level domain's does: that sets
   * it apart from an address without a lookahead, which the API's fuzzer cannot draw from quickly.
   * Its length (at most 253) is the document's {@code maxLength}, and checked here by {@link
   * #read}.
   */
  private static final String NAME =
      "([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?[.])*[A-Za-z]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?";

  /**
   * Every entry {@link #parse} takes, and nothing else: an IPv4 address or CIDR, an IPv6 one (no
   * embedded IPv4, no zone), or a host name. Written without backslashes, so that the API's
   * document can give it as it is.
   */
  public static final String PATTERN =
      "^("
          + OCTET
          + "([.]"
          + OCTET
          + "){3}(/(3[0-2]|[12]?[0-9]))?"
          + "|("
          + V6
          + ")(/(12[0-8]|1[01][0-9]|[1-9]?[0-9]))?"
          + "|"
          + NAME
          + ")$";

  private static final Pattern WHOLE = Pattern.compile(PATTERN);

  private static final Pattern HOST = Pattern.compile("^" + NAME + "$");
  private static final Pattern IPV4 = Pattern.compile("^\\d{1,3}(\\.\\d{1,3}){3}$");

  /**
   * The entry {@code s}, or an {@link IllegalArgumentException} saying what is wrong with it (a
   * CIDR that is not one, a prefix too long, a name that no DNS name can be).
   */
  public static EgressTarget parse(String s) {
    EgressTarget target = read(s);
    if (!WHOLE.matcher(s).matches()) {
      throw new IllegalArgumentException(
          "\"" + s + "\" is neither a CIDR (203.0.113.0/24), an address nor a host name");
    }
    return target;
  }

  private static EgressTarget read(String s) {
    if (s == null || s.isBlank()) {
      throw new IllegalArgumentException("is empty: give a CIDR, an address or a host name");
    }
    String t = s.strip().toLowerCase(Locale.ROOT);
    int slash = t.indexOf('/');
    String address = slash < 0 ? t : t.substring(0, slash);
    boolean v4 = IPV4.matcher(address).matches();
    boolean v6 = address.contains(":");
    if (!v4 && !v6) {
      if (slash >= 0 || t.length() > 253 || !HOST.matcher(t).matches()) {
        throw new IllegalArgumentException(
            "\"" + s + "\" is neither a CIDR (203.0.113.0/24), an address nor a host name");
      }
      return new EgressTarget(t, true);
    }
    byte[] bytes = bytes(address, v4, s);
    int bits = bytes.length * 8;
    int prefix = bits;
    if (slash >= 0) {
      try {
        prefix = Integer.parseInt(t.substring(slash + 1));
      } catch (NumberFormatException e) {
        prefix = -1;
      }
      if (prefix < 0 || prefix > bits) {
        throw new IllegalArgumentException(
            "\"" + s + "\" has a prefix length that is not 0 to " + bits);
      }
    }
    BigInteger value = new BigInteger(1, bytes);
    BigInteger mask =
        BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE).shiftRight(prefix).not();
    byte[] network = toBytes(value.and(mask), bytes.length);
    try {
      String canonical =
          compressed(java.net.InetAddress.getByAddress(network).getHostAddress()) + "/" + prefix;
      return new EgressTarget(canonical, false);
    } catch (java.net.UnknownHostException e) {
      throw new IllegalArgumentException("\"" + s + "\" is not an address");
    }
  }

  /** Whether it is an IPv6 CIDR (else IPv4, or a host name). */
  public boolean v6() {
    return !host && text.contains(":");
  }

  private static byte[] bytes(String address, boolean v4, String s) {
    if (v4) {
      String[] parts = address.split("\\.");
      byte[] b = new byte[4];
      for (int i = 0; i < 4; i++) {
        int n = Integer.parseInt(parts[i]);
        if (n > 255) {
          throw new IllegalArgumentException("\"" + s + "\" is not an IPv4 address");
        }
        b[i] = (byte) n;
      }
      return b;
    }
    if (!address.matches("^[0-9a-f:.]+$")) {
      throw new IllegalArgumentException("\"" + s + "\" is not an IPv6 address");
    }
    try {
      // Only hex digits, colons and dots: never a name lookup.
      // An IPv4-mapped address comes back as the IPv4 address it maps.
      return java.net.InetAddress.getByName(address).getAddress();
    } catch (java.net.UnknownHostException e) {
      throw new IllegalArgumentException("\"" + s + "\" is not an IPv6 address");
    }
  }

  /** An IPv6 address with its longest run of zero groups as {@code ::}, as people write it. */
  private static String compressed(String address) {
    if (!address.contains(":")) {
      return address;
    }
    String[] groups = address.split(":");
    int bestStart = -1;
    int bestLength = 1;
    for (int i = 0; i < groups.length; ) {
      int j = i;
      while (j < groups.length && groups[j].equals("0")) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j == i ? i + 1 : j;
    }
    if (bestStart < 0) {
      return address;
    }
    String head = String.join(":", java.util.Arrays.copyOfRange(groups, 0, bestStart));
    String tail =
        String.join(
            ":", java.util.Arrays.copyOfRange(groups, bestStart + bestLength, groups.length));
    return head + "::" + tail;
  }

  private static byte[] toBytes(BigInteger value, int length) {
    byte[] raw = value.toByteArray();
    byte[] out = new byte[length];
    int copy = Math.min(raw.length, length);
    System.arraycopy(raw, raw.length - copy, out, length - copy, copy);
    return out;
  }
}
