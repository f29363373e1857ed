package dev.rota.api;

/**
 * Bounds on what a request may carry, beyond the 1 MiB body cap: no map or list a client sends can
 * grow a row, an event or a workflow payload without bound.
 */
public final class Limits {
  /** {@code cpu}, {@code memory}, {@code nvidia.com/gpu}. */
  public static final String RESOURCE_NAME = "^[a-z0-9]([a-z0-9./-]{0,61}[a-z0-9])?$";

  public static final String RESOURCE_MESSAGE = "must be a resource name such as cpu or memory";

  /** Kubernetes-style label keys: an optional DNS prefix and a name, e.g. {@code rota.dev/os}. */
  public static final String LABEL_KEY = "^" + Limits.LABEL_KEY_BODY + "$";

  /** {@link #LABEL_KEY} without its anchors, for patterns that hold label keys. */
  public static final String LABEL_KEY_BODY =
      "([a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?/)?[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?";

  /** A label's value as a spread's targets name it: Kubernetes' label values, not empty. */
  public static final String LABEL_VALUE = "^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$";

  /** An environment variable's name, as a VM's {@code env} keys. */
  public static final String ENV_NAME = "^[A-Za-z_][A-Za-z0-9_]{0,255}$";

  public static final String LABEL_MESSAGE = "must be a label key such as disk or rota.dev/os";

  /**
   * An agent's endpoint: http or https, a host name or an IPv4 address, an optional port and path.
   * What this admits, {@link java.net.URI} reads with its host, so the document's pattern is the
   * whole rule.
   */
  public static final String HTTP_URL =
      "^https?://((25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}"
          + "|([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)*[A-Za-z]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)"
          + "(:([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?"
          + "(/[A-Za-z0-9._~-]*)*$";

  /**
   * What a worker's image cache fetches: an https, http or file address of the characters URLs are
   * written in (RFC 3986's unreserved and reserved ones, and percent escapes; no {@code @}, which
   * starts the pin, and no brackets: no IPv6 literal), its content optionally pinned by its
   * SHA-256.
   */
  public static final String IMAGE_ADDRESS =
      "^(https?|file)://[A-Za-z0-9._~:/?#!$&'()*+,;=%-]+(@sha256:[0-9a-f]{64})?$";

  /** A VM's disk: an address as above, or an image in an OCI registry. */
  public static final String DISK_IMAGE =
      IMAGE_ADDRESS + "|" + dev.rota.agentapi.OciReference.REGEX;

  public static final String DISK_IMAGE_MESSAGE =
      "must be an https://, http:// or file:// address (optionally pinned with @sha256:<64 hex"
          + " digits>), or an image in an OCI registry, "
          + dev.rota.agentapi.OciReference.FORM;

  public static final String HTTP_URL_MESSAGE =
      "must be an http or https URL such as http://10.0.0.5:9101";

  private Limits() {}
}
