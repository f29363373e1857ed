package dev.rota.workflows.cluster;

/**
 * What the apply activity carried out.
 *
 * @param remaining actions left for a later term (an agent did not answer, or more than one batch)
 */
public record ApplyResult(int started, int removed, int notified, int failed, long remaining) {
  public static final ApplyResult NOTHING = new ApplyResult(0, 0, 0, 0, 0);
}
