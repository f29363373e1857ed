package dev.rota.control;

import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The replicas set passes asked to delete lately, as their rows note it. A set being deleted, or
 * scaled down, runs a pass each time one of its replicas is gone, on whichever host takes the
 * activity; without this, every pass would ask each replica still there again, a signal each, while
 * their workflows are already deleting them. A replica is asked again once its workflow was started
 * anew ({@link WorkflowKeeper}: Temporal lost it, and the request with it), or once {@link #AGAIN}
 * has passed, longer than a large set takes to go.
 */
@Singleton
public class AskedDeletions {
  static final Duration AGAIN = Duration.ofMinutes(10);

  private final VmRepository vms;

  public AskedDeletions(VmRepository vms) {
    this.vms = vms;
  }

  /**
   * The submissions ({@code seq}) of those of {@code candidates} asked to delete themselves lately.
   */
  Set<Long> askedLately(List<VmRow> candidates, Instant now) {
    if (candidates.isEmpty()) {
      return Set.of();
    }
    return new HashSet<>(
        vms.deletionAskedSince(candidates.stream().map(VmRow::seq).toList(), now.minus(AGAIN)));
  }

  /** Notes that the workflows of {@code asked} took the request to delete them {@code now}. */
  void asked(List<VmRow> asked, Instant now) {
    if (!asked.isEmpty()) {
      vms.deletionAsked(asked.stream().map(VmRow::seq).toList(), now);
    }
  }

  /** Forgets that {@code begunAnew} were asked: their workflows were started anew, without it. */
  void forget(List<VmRow> begunAnew) {
    if (!begunAnew.isEmpty()) {
      vms.deletionUnasked(begunAnew.stream().map(VmRow::seq).toList());
    }
  }
}
