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
  public static final String LABEL_KEY = "^([a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?/)?[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$";

  public static final String LABEL_MESSAGE = "must be a label key such as disk or rota.dev/os";

  private Limits() {}
}
