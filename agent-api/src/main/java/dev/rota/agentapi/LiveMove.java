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

  /** What a VM arriving at a task is sent over: its memory, or one of its disks (QEMU's NBD). */
  public static final java.util.List<String> CHANNELS = java.util.List.of("memory", "disks");
}
