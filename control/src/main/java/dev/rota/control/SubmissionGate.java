package dev.rota.control;

import dev.rota.store.ClusterSettingsRepository;
import dev.rota.store.ClusterSettingsRow;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;

/**
 * Whether the cluster takes new submissions ({@code PATCH /v1/cluster {"rejectSubmissions": true}},
 * as Nomad's {@code -reject-job-registration}), and the defaults they get (a lease): read from the
 * cluster's settings at most once a second per host, so that the submission path pays no read of
 * its own; a change made on one host holds on every host within a second.
 */
@Singleton
public class SubmissionGate {
  static final Duration FRESH_FOR = Duration.ofSeconds(1);

  private final ClusterSettingsRepository settings;
  private final Clock clock;
  private volatile Read last;

  private record Read(
      boolean rejecting, String reason, Integer defaultMaxRunSeconds, long atMillis) {}

  public SubmissionGate(ClusterSettingsRepository settings, Clock clock) {
    this.settings = settings;
    this.clock = clock;
  }

  /** Refuses a submission while the cluster rejects them; {@code what} names it. */
  public void check(String what) {
    Read read = read();
    if (read.rejecting()) {
      throw new Rejected(
          "the cluster takes no new submissions for now ("
              + read.reason()
              + "); "
              + what
              + " was not submitted");
    }
  }

  /** {@code spec} with the cluster's defaults for what it does not give. */
  public dev.rota.store.VmTemplate withDefaults(dev.rota.store.VmTemplate spec) {
    return spec.withDefaultLease(read().defaultMaxRunSeconds());
  }

  private Read read() {
    Read read = last;
    long now = clock.millis();
    if (read == null || now - read.atMillis() >= FRESH_FOR.toMillis() || now < read.atMillis()) {
      ClusterSettingsRow row = settings.findById(ClusterSettingsRow.ID).orElse(null);
      read =
          new Read(
              row != null && row.rejectSubmissions(),
              row == null || row.pauseReason() == null ? "no reason given" : row.pauseReason(),
              row == null ? null : row.defaultMaxRunSeconds(),
              now);
      last = read;
    }
    return read;
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
