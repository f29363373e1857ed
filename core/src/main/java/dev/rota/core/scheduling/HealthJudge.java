package dev.rota.core.scheduling;

import dev.rota.core.model.WorkerHealth;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/** Turns heartbeats and probe results into worker health, through {@link HealthTable}. */
public final class HealthJudge {
  private HealthJudge() {}

  /**
   * @param listeningSince when the scheduler came back after not listening for longer than a worker
   *     may be silent (every host down, or the scheduler stopped), or null: a worker is judged on
   *     what it has had a chance to say since, not on the silence the outage imposed on it
   */
  public static HealthVerdict judge(
      WorkerProbeState w, Instant now, HealthSettings s, Instant listeningSince) {
    HealthTable.Cell cell = cellOf(w, now, s, listeningSince);
    HealthTable.Row row =
        HealthTable.lookup(cell)
            .orElseThrow(() -> new IllegalStateException("no health rule for " + cell));
    WorkerHealth next = row.next();
    Instant flakyUntil = null;
    if (next == WorkerHealth.FLAKY) {
      flakyUntil =
          cell.cooldown() == HealthTable.Cooldown.ACTIVE
              ? w.flakyUntil()
              : now.plus(s.flakyCooldown());
    }
    return new HealthVerdict(
        next,
        message(row, cell, w, s, flakyUntil, listeningSince),
        flakyUntil,
        nextChange(w, next, flakyUntil, s, listeningSince));
  }

  static HealthTable.Cell cellOf(
      WorkerProbeState w, Instant now, HealthSettings s, Instant listeningSince) {
    Duration silence = Duration.between(heardOrListening(w, listeningSince), now);
    HealthTable.Heartbeat heartbeat =
        silence.compareTo(s.lostAfter().plus(s.offlineAfter())) >= 0
            ? HealthTable.Heartbeat.GONE
            : silence.compareTo(s.lostAfter()) >= 0
                ? HealthTable.Heartbeat.STALE
                : HealthTable.Heartbeat.FRESH;
    if (heartbeat == HealthTable.Heartbeat.FRESH
        && graced(w, listeningSince)
        && !answeredSince(w, listeningSince)) {
      heartbeat = HealthTable.Heartbeat.QUIET;
    }
    HealthTable.Probe probe;
    if (w.lastProbeAt() == null) {
      probe = HealthTable.Probe.NOT_PROBED;
    } else if (w.lastProbeOk()) {
      boolean tasksFailing =
          s.flakyAfterTaskFailures() > 0 && w.taskFailures() >= s.flakyAfterTaskFailures();
      probe = tasksFailing ? HealthTable.Probe.TASKS_FAILING : HealthTable.Probe.ANSWERED;
    } else {
      probe =
          w.probeFailures() >= s.flakyAfterErrors()
              ? HealthTable.Probe.FAILING_REPEATEDLY
              : HealthTable.Probe.FAILING;
    }
    HealthTable.Cooldown cooldown =
        w.flakyUntil() != null && now.isBefore(w.flakyUntil())
            ? HealthTable.Cooldown.ACTIVE
            : HealthTable.Cooldown.NONE;
    return new HealthTable.Cell(w.health(), heartbeat, probe, cooldown);
  }

  /**
   * Whether the agent should be contacted this term: a ready worker once its probe interval has
   * passed (its task list is reconciled; changes it reports itself meanwhile), one not ready with
   * doubling back-off, a flaky one once its cool-down ends, and a lost or offline one never (it has
   * stopped heartbeating).
   */
  public static boolean probeDue(WorkerProbeState w, Instant now, HealthSettings s) {
    return due(probeDueAt(w, s), now);
  }

  private static boolean due(Instant dueAt, Instant now) {
    return dueAt != null && !now.isBefore(dueAt);
  }

  /**
   * The workers whose probes are due, at most {@code limit} of them, the longest due first (one
   * never probed before any other): a term asks only as many agents as its calls at once can answer
   * in a few rounds. The rest stay due and go first next term. At a thousand workers, all due in
   * one term after a long one, a term spent 11.6 s asking 600 agents and storing their lists while
   * the VMs placed before waited for it (the terms after grew longer still); an agent reports its
   * task changes itself, and its heartbeats, not probes, say it is alive, so a probe coming later
   * costs only the safety net's delay.
   */
  public static List<WorkerProbeState> probesDue(
      Collection<WorkerProbeState> workers, Instant now, HealthSettings s, int limit) {
    record Due(WorkerProbeState worker, Instant at) {}
    // Each worker's due time once, not once to filter and again at every comparison of the sort.
    return workers.stream()
        .map(w -> new Due(w, probeDueAt(w, s)))
        .filter(d -> due(d.at(), now))
        .sorted(Comparator.comparing(Due::at).thenComparing(d -> d.worker().name()))
        .limit(limit)
        .map(Due::worker)
        .toList();
  }

  /**
   * Whether the worker's probe decides whether VMs may go to it: it is not ready, or flaky, or was
   * never asked. A ready worker's probe is a routine check of its task list, which a term that
   * someone waits on may leave until after its placements.
   */
  public static boolean probeDecidesPlacement(WorkerProbeState w) {
    return w.health() != WorkerHealth.READY || w.lastProbeAt() == null;
  }

  /**
   * When the worker's probe falls due, {@link Instant#MIN} if it never had one, null if it is never
   * probed.
   */
  private static Instant probeDueAt(WorkerProbeState w, HealthSettings s) {
    return switch (w.health()) {
      case READY -> w.lastProbeAt() == null ? Instant.MIN : w.lastProbeAt().plus(s.probeInterval());
      case NOT_READY ->
          w.lastProbeAt() == null
              ? Instant.MIN
              : w.lastProbeAt().plus(backoff(w.probeFailures(), s));
      case FLAKY -> w.flakyUntil() == null ? Instant.MIN : w.flakyUntil();
      case LOST, OFFLINE -> null;
    };
  }

  /** 1 s, 2 s, 4 s, … after consecutive failures, up to the cap. */
  static Duration backoff(int failures, HealthSettings s) {
    if (failures <= 0) {
      return Duration.ZERO;
    }
    long seconds = failures >= 31 ? Long.MAX_VALUE : 1L << (failures - 1);
    Duration d = Duration.ofSeconds(Math.min(seconds, s.probeBackoffCap().toSeconds()));
    return d.compareTo(s.probeBackoffCap()) > 0 ? s.probeBackoffCap() : d;
  }

  /** Whether the outage's grace is what keeps it from being judged on its last heartbeat. */
  private static boolean graced(WorkerProbeState w, Instant listeningSince) {
    return listeningSince != null && listeningSince.isAfter(w.lastSeen());
  }

  /** A successful probe since the scheduler came back: a sign of life, as a heartbeat is. */
  private static boolean answeredSince(WorkerProbeState w, Instant listeningSince) {
    return w.lastProbeOk() && w.lastProbeAt() != null && !w.lastProbeAt().isBefore(listeningSince);
  }

  /** Its last heartbeat, or when the scheduler started listening again if that is later. */
  private static Instant heardOrListening(WorkerProbeState w, Instant listeningSince) {
    return graced(w, listeningSince) ? listeningSince : w.lastSeen();
  }

  private static Instant nextChange(
      WorkerProbeState w,
      WorkerHealth next,
      Instant flakyUntil,
      HealthSettings s,
      Instant listeningSince) {
    Instant lost = heardOrListening(w, listeningSince).plus(s.lostAfter());
    Instant offline = lost.plus(s.offlineAfter());
    Instant earliest =
        switch (next) {
          case OFFLINE -> null;
          case LOST -> offline;
          default -> lost;
        };
    if (flakyUntil != null) {
      earliest = min(earliest, flakyUntil);
    }
    if (next == WorkerHealth.NOT_READY && w.lastProbeAt() != null) {
      earliest = min(earliest, w.lastProbeAt().plus(backoff(w.probeFailures(), s)));
    }
    return earliest;
  }

  private static Instant min(Instant a, Instant b) {
    return a == null ? b : b == null ? a : a.isBefore(b) ? a : b;
  }

  /**
   * What made it flaky: the tasks that failed on it, or what its agent's last failed probe said.
   */
  private static String flakyBecause(HealthTable.Cell cell, WorkerProbeState w, HealthSettings s) {
    if (cell.probe() == HealthTable.Probe.TASKS_FAILING) {
      return " (" + w.taskFailures() + " within " + s.taskFailureWindow().toMinutes() + " min)";
    }
    return w.lastProbeError() == null ? "" : ": " + w.lastProbeError();
  }

  private static String message(
      HealthTable.Row row,
      HealthTable.Cell cell,
      WorkerProbeState w,
      HealthSettings s,
      Instant flakyUntil,
      Instant listeningSince) {
    String why = row.why();
    String since =
        heardOrListening(w, listeningSince).equals(w.lastSeen())
            ? ""
            : "; none since the scheduler came back at " + listeningSince;
    return switch (row.next()) {
      case OFFLINE, LOST -> why + " (last heartbeat " + w.lastSeen() + since + ")";
      case FLAKY -> why + flakyBecause(cell, w, s) + "; probed again at " + flakyUntil;
      case NOT_READY ->
          why
              + (w.probeFailures() > 0
                  ? " (" + w.probeFailures() + " failed: " + w.lastProbeError() + ")"
                  : "");
      case READY -> why;
    };
  }
}
