package dev.rota.control;

/**
 * How fast a host is taking submissions: the VMs submitted to it in the current second and the one
 * before. Above {@link #OUTPACING} a second, submissions come faster than a Temporal server starts
 * workflows, so a start made meanwhile does not start the burst's last workflow any sooner, and
 * takes the CPU the burst's VMs wait for (docs/performance.md).
 */
final class SubmissionPace {
  static final int OUTPACING = 50;

  private long second = Long.MIN_VALUE;
  private int thisSecond;
  private int lastSecond;

  /** {@code vms} submitted at {@code millis}. */
  synchronized void submitted(int vms, long millis) {
    turn(millis);
    thisSecond += vms;
  }

  /** Whether more than {@link #OUTPACING} were submitted in the last second or two. */
  synchronized boolean outpacingStarts(long millis) {
    turn(millis);
    return thisSecond + lastSecond > OUTPACING;
  }

  private void turn(long millis) {
    long now = Math.floorDiv(millis, 1000);
    if (now == second) {
      return;
    }
    lastSecond = now == second + 1 ? thisSecond : 0;
    thisSecond = 0;
    second = now;
  }
}
