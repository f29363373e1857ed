package dev.rota.api;

/** What the API allows as the name of a worker or a VM. */
public final class Names {
  /** A DNS label: lowercase letters, digits and inner hyphens, 1 to 63 characters. */
  public static final String DNS_LABEL = "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$";

  public static final String DNS_LABEL_MESSAGE =
      "must be a DNS label: 1 to 63 lowercase letters, digits or '-', starting and ending with a letter or digit";

  private Names() {}
}
