package dev.rota.control;

import dev.rota.store.ClusterSettingsRepository;
import dev.rota.store.ClusterSettingsRow;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;

/**
 * Whether the cluster takes new submissions ({@code PATCH /v1/cluster {"rejectSubmissions": true}},
 * as Nomad's {@code -reject-job-registration}): read from the cluster's settings at most once a
 * second per host, so that the submission path pays no read of its own; a pause set on one host
 * holds on every host within a second.
 */
@Singleton
public class SubmissionGate {
  static final Duration FRESH_FOR = Duration.ofSeconds(1);

  private final ClusterSettingsRepository settings;
  private final Clock clock;
  private volatile Read last;

  private record Read(boolean rejecting, String reason, long atMillis) {}

  public SubmissionGate(ClusterSettingsRepository settings, Clock clock) {
    this.settings = settings;
    this.clock = clock;
  }

  /** Refuses a submission while the cluster rejects them; {@code what} names it. */
  public void check(String what) {
    Read read = last;
    long now = clock.millis();
    if (read == null || now - read.atMillis() >= FRESH_FOR.toMillis() || now < read.atMillis()) {
      ClusterSettingsRow row = settings.findById(ClusterSettingsRow.ID).orElse(null);
      read =
          new Read(
              row != null && row.rejectSubmissions(),
              row == null || row.pauseReason() == null ? "no reason given" : row.pauseReason(),
              now);
      last = read;
    }
    if (read.rejecting()) {
      throw new Rejected(
          "the cluster takes no new submissions for now ("
              + read.reason()
              + "); "
              + what
              + " was not submitted");
    }
  }

  /** A change on this host holds at once on it. */
  void forget() {
    last = null;
  }

  /** The cluster takes no submissions now: a 503 with Retry-After; nothing was done. */
  public static class Rejected extends NotAnswered {
    public Rejected(String message) {
      super(message);
    }
  }
}
