package dev.rota.workflows.schedule;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The name of the VM a schedule's run makes: the schedule's name, the run's time, and a part of the
 * run's own id, as {@code nightly-20261201-200000-3f9a1c}. The time is read from the id Temporal
 * gives the run ({@code rota-schedule-nightly-2026-12-01T20:00:00Z}); the last part tells apart two
 * runs of the same second (two triggers, a run that replaced the one before it, which Temporal
 * gives the same id). The same run, tried again, gets the same name.
 */
public final class ScheduledVmNames {
  /**
   * A VM's name is a DNS label of at most 63 characters: the schedule's leaves 23 for the time and
   * the run.
   */
  public static final int MAX_SCHEDULE_NAME = 40;

  private ScheduledVmNames() {}

  /**
   * @param workflowId the run's workflow id
   * @param runId the id of the run's first execution
   */
  public static String of(String schedule, String workflowId, String runId) {
    String run = hex(workflowId + "\n" + runId, 3);
    String prefix = ScheduledVmWorkflow.scheduleId(schedule) + "-";
    if (workflowId.startsWith(prefix)) {
      String digits = workflowId.substring(prefix.length()).replaceAll("[^0-9]", "");
      if (digits.length() == 14) {
        return schedule + "-" + digits.substring(0, 8) + "-" + digits.substring(8) + "-" + run;
      }
    }
    // A run started otherwise (by hand, in a test): a name of its ids all the same.
    return schedule + "-" + hex(workflowId + "\n" + runId, 7);
  }

  private static String hex(String text, int bytes) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
