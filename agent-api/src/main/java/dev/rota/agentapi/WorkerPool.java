package dev.rota.agentapi;

/**
 * The worker pool a worker belongs to (Nomad's node pools; not a warm pool of VMs): a worker of any
 * pool but the default carries the label {@link #LABEL} with its pool's name; a worker of the
 * default pool carries none, so that a worker registered before pools existed is in it. A VM goes
 * only to the workers of its pool, the default pool unless it names one: a constraint on that
 * label, as any other, so that placement says so when no worker of its pool has room.
 */
public final class WorkerPool {
  public static final String LABEL = "rota.dev/worker-pool";

  public static final String DEFAULT = "default";

  /** A pool's name: a DNS label. */
  public static final String NAME = "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$";

  private WorkerPool() {}
}
