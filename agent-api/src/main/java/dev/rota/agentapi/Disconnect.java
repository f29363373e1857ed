package dev.rota.agentapi;

/**
 * What becomes of a VM whose worker is cut off from every controller host, as Nomad's {@code
 * disconnect} block says it. By default ({@code replace} true) the scheduler places a new copy
 * elsewhere once the worker is offline, and the worker's agent stops the old copy before that, at
 * the fence the controller gives it: a VM never runs twice. A VM that prefers staying where it runs
 * ({@code replace} false) is never placed elsewhere while its worker is offline, and its agent
 * keeps it running through the cut, for good or for {@code stopAfterSeconds}; it is placed
 * elsewhere only once its worker is removed.
 *
 * @param replace whether a new copy is placed elsewhere once the worker is offline
 * @param stopAfterSeconds with {@code replace} false, how long the agent keeps the VM running while
 *     cut off; null: as long as the cut lasts
 */
public record Disconnect(boolean replace, Integer stopAfterSeconds) {
  /**
   * Whether {@code d} keeps its VM where it runs through a cut (static, so that no serializer takes
   * it for a property).
   */
  public static boolean keeps(Disconnect d) {
    return d != null && !d.replace();
  }
}
