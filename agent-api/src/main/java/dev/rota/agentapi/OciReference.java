package dev.rota.agentapi;

import java.util.regex.Pattern;

/**
 * An image in an OCI registry, as a VM's {@code image} names it: {@code
 * oci://registry[:port]/repository[:tag][@sha256:<manifest digest>]} (the tag {@code latest} when
 * neither is given; the registry a host name or IPv4 address). Groups: 1 the registry, 2 the
 * repository, 3 the tag, 4 the digest. No backslash in it: the API's document carries it as is.
 */
public final class OciReference {
  public static final String REGEX =
      "^oci://([A-Za-z0-9.-]+(?::[0-9]+)?)/"
          + "([a-z0-9]+(?:(?:[._]|__|-+|/)[a-z0-9]+)*)(?::([A-Za-z0-9_][A-Za-z0-9_.-]{0,127}))?"
          + "(?:@(sha256:[0-9a-f]{64}))?$";

  public static final Pattern PATTERN = Pattern.compile(REGEX);

  public static final String FORM = "oci://registry/repository[:tag][@sha256:<64 hex digits>]";

  private OciReference() {}
}
