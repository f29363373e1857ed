package dev.rota.agentapi;

/**
 * {@code POST /v1/tasks/{id}/move}'s answer: the running VM of that task sent, while it ran, to a
 * task of its VM's on another worker, which now runs it; the task here has ended.
 *
 * @param worker the worker it runs on now
 * @param bytes what was sent: its disks' data and its memory
 * @param pausedMs how long its guest was paused for the hand-over
 */
public record LiveMove(String worker, long bytes, long pausedMs) {
  /**
   * The request: where the VM goes.
   *
   * @param worker the worker it moves to, for what it says
   * @param endpoint that worker's agent's task API ({@code https://host:port})
   * @param task the task there that waits for it, started with {@link TaskSpec#incoming}
   * @param token a {@link DiskToken} for {@link DiskToken#incoming that task's arrival}, signed by
   *     that agent's secret; null when it asks none (plain HTTP, dev mode)
   * @param certificateSha256 that agent's certificate pin; null over plain HTTP
   */
  public record Request(
      String worker, String endpoint, String task, String token, String certificateSha256) {}

  /**
   * {@code GET /v1/disks/{id}/move}'s answer, asked by the agent a VM moves to when it never heard
   * the answer to its move: where the move stands on the worker the VM leaves, settled from its
   * QEMU's own state.
   *
   * @param state {@link #MOVING}, {@link #MOVED}, {@link #STAYS} or {@link #GONE}
   * @param worker for {@link #MOVED}, the worker the VM went to
   */
  public record Outcome(String state, String worker) {
    /** Under way, or cut short by an agent restart and not yet settled: ask again. */
    public static final String MOVING = "moving";

    /** The VM went to {@code worker}: its QEMU there has the guest. */
    public static final String MOVED = "moved";

    /** The VM runs here and nothing moves it: a move asked for failed, or will. */
    public static final String STAYS = "stays";

    /** No task here runs the VM, and none sent it to the asking worker: it will not come there. */
    public static final String GONE = "gone";
  }

  /** What a VM arriving at a task is sent over: its memory, or one of its disks (QEMU's NBD). */
  public static final java.util.List<String> CHANNELS = java.util.List.of("memory", "disks");
}
