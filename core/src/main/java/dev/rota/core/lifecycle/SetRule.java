package dev.rota.core.lifecycle;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What a set does to its replicas in one pass: which ordinals it makes of its current template
 * version, and which replicas it removes. A set keeps {@code wanted} replicas; a change of its
 * template is rolled out over the replicas made from an earlier one, in the manner of a Kubernetes
 * Deployment:
 *
 * <ul>
 *   <li>at no moment more than {@code wanted + maxSurge} replicas, those still being removed
 *       counted, so that no more copies than that ever run;
 *   <li>at no moment fewer than {@code wanted - maxUnavailable} available replicas, but for those
 *       that were not available already: an old replica that is not available (pending, failing) is
 *       replaced at once, as its going costs nothing that runs;
 *   <li>a replica is available while it runs, ready (its readiness check passing, where it has
 *       one); a new one once it has for {@code minHealthyTime}: a new replica that fails soon after
 *       its start holds the rollout.
 * </ul>
 *
 * <p>A rollout that waits (its canaries made, until promoted; or paused) goes to {@code newAtMost}
 * new replicas and keeps the old ones beyond: it removes an old one only to make room for those. A
 * rollout one of whose new replicas failed goes no further: it makes no more new replicas, but for
 * one the set lacks, and removes no more old ones, which keep serving while the set is reverted or
 * given a template that works.
 *
 * <p>Without a rollout, the set scales: the lowest ordinals free are made, the highest go first.
 * What the user asks to go (a scale-down, the set's deletion) goes at once, old replicas first; the
 * bounds are the rollout's. New replicas take the lowest ordinals no replica holds, one being
 * removed included, so that names stay below {@code wanted + maxSurge}.
 */
public final class SetRule {
  private SetRule() {}

  /**
   * How a set rolls out a new template.
   *
   * @param maxUnavailable how many of its replicas may be unavailable because of the rollout
   * @param maxSurge how many replicas beyond those it wants it may have while it rolls out
   * @param minHealthyTime how long a replica runs, ready, before it counts as available
   * @param newAtMost how many new replicas the rollout goes to before it waits: its canaries until
   *     they are promoted, those it has while it is paused; {@link #ALL} otherwise
   */
  public record Policy(int maxUnavailable, int maxSurge, Duration minHealthyTime, int newAtMost) {
    public static final int ALL = Integer.MAX_VALUE;

    public Policy(int maxUnavailable, int maxSurge, Duration minHealthyTime) {
      this(maxUnavailable, maxSurge, minHealthyTime, ALL);
    }
  }

  /**
   * A replica as the pass finds it.
   *
   * @param version the set's template version it was made from
   * @param going whether it is being removed already
   * @param readySince since when it runs, ready; null while it does not
   * @param failed whether it failed (its task failed, or exited with another code than 0) since it
   *     was made
   */
  public record Replica(
      int ordinal, int version, boolean going, Instant readySince, boolean failed) {
    public Replica(int ordinal, int version, boolean going, Instant readySince) {
      this(ordinal, version, going, readySince, false);
    }

    /**
     * Whether it serves: ready, and, made of the set's current {@code version}, for {@code
     * minHealthyTime} already. A replica of an earlier version proved itself before the rollout.
     */
    boolean availableAt(Instant now, int current, Duration minHealthyTime) {
      return !going
          && readySince != null
          && (version != current || !readySince.plus(minHealthyTime).isAfter(now));
    }
  }

  /**
   * One pass's decisions.
   *
   * @param make the ordinals to make now, of the current version
   * @param remove the ordinals to remove now
   * @param updated how many replicas are of the current version (not being removed)
   * @param updatedAvailable how many of those are available
   * @param available how many replicas are available
   * @param rolling whether replicas of an earlier version are still there
   * @param failed the ordinals of the replicas of the current version that failed, while replicas
   *     of an earlier version are there: the rollout goes no further
   */
  public record Plan(
      List<Integer> make,
      List<Integer> remove,
      int updated,
      int updatedAvailable,
      int available,
      boolean rolling,
      List<Integer> failed) {
    /** Whether nothing is left to do: no replica to make or remove, none of an earlier version. */
    public boolean settled(List<Replica> replicas) {
      return make.isEmpty()
          && remove.isEmpty()
          && !rolling
          && replicas.stream().noneMatch(Replica::going);
    }
  }

  /** The pass over {@code replicas} of a set that wants {@code wanted} of {@code version}. */
  public static Plan plan(
      int wanted, int version, List<Replica> replicas, Policy policy, Instant now) {
    Duration healthy = policy.minHealthyTime();
    List<Replica> members = replicas.stream().filter(r -> !r.going()).toList();
    List<Replica> fresh = members.stream().filter(r -> r.version() == version).toList();
    List<Replica> old = members.stream().filter(r -> r.version() != version).toList();
    boolean rolling = !old.isEmpty() && wanted > 0;
    int limit = wanted + (rolling ? policy.maxSurge() : 0);
    int available =
        (int) members.stream().filter(r -> r.availableAt(now, version, healthy)).count();

    List<Replica> remove = new ArrayList<>();
    // What is over the limit goes whatever it costs: the user asked for fewer.
    List<Replica> byNeed = new ArrayList<>(old);
    byNeed.sort(unavailableFirst(now, version, healthy));
    List<Replica> freshHighestFirst = new ArrayList<>(fresh);
    freshHighestFirst.sort(Comparator.comparingInt(Replica::ordinal).reversed());
    byNeed.addAll(freshHighestFirst);
    int over = members.size() - limit;
    for (int i = 0; i < over; i++) {
      remove.add(byNeed.get(i));
    }
    int availableLeft =
        available - (int) remove.stream().filter(r -> r.availableAt(now, version, healthy)).count();
    // The rest of the old ones, as the bounds allow, but for those a waiting rollout keeps.
    List<Integer> failed =
        rolling ? fresh.stream().filter(Replica::failed).map(Replica::ordinal).toList() : List.of();
    int newTarget = Math.min(wanted, failed.isEmpty() ? policy.newAtMost() : fresh.size());
    int oldLeft = (int) old.stream().filter(r -> !remove.contains(r)).count();
    int oldKept = failed.isEmpty() ? wanted - newTarget : oldLeft;
    int floor = Math.max(0, wanted - policy.maxUnavailable());
    for (Replica r : byNeed) {
      if (r.version() == version || remove.contains(r)) {
        continue;
      }
      if (oldLeft <= oldKept) {
        break;
      }
      oldLeft--;
      if (!r.availableAt(now, version, healthy)) {
        remove.add(r);
      } else if (availableLeft - 1 >= floor) {
        remove.add(r);
        availableLeft--;
      } else {
        oldLeft++;
      }
    }

    // A replica being removed still runs: it holds its place until it is gone.
    // A waiting rollout makes no more new ones than it goes to, but for a replica the set lacks.
    int lacking = Math.max(newTarget - fresh.size(), wanted - members.size());
    int make = Math.max(0, Math.min(lacking, limit - replicas.size()));
    Set<Integer> held = new HashSet<>();
    replicas.forEach(r -> held.add(r.ordinal()));
    List<Integer> ordinals = new ArrayList<>();
    for (int ordinal = 0; ordinals.size() < make; ordinal++) {
      if (!held.contains(ordinal)) {
        ordinals.add(ordinal);
      }
    }
    return new Plan(
        ordinals,
        remove.stream().map(Replica::ordinal).toList(),
        fresh.size(),
        (int) fresh.stream().filter(r -> r.availableAt(now, version, healthy)).count(),
        available,
        !old.isEmpty(),
        failed);
  }

  /**
   * How far a rollout got: the most of its new replicas available at once, and since when.
   *
   * @param since when the rollout began, or last had more new replicas available than before
   */
  public record Progress(int available, Instant since) {
    /** This progress after a pass that found {@code updatedAvailable} new replicas available. */
    public Progress after(int updatedAvailable, Instant now) {
      return updatedAvailable > available ? new Progress(updatedAvailable, now) : this;
    }

    /**
     * Whether the rollout is stalled: no more of its new replicas available for longer than {@code
     * deadline}, as a template whose VMs never become ready leaves it.
     */
    public boolean stalled(Duration deadline, Instant now) {
      return since.plus(deadline).isBefore(now);
    }
  }

  /** Old replicas in the order they go: those not available first, then the highest ordinal. */
  private static Comparator<Replica> unavailableFirst(Instant now, int version, Duration healthy) {
    return Comparator.comparing((Replica r) -> r.availableAt(now, version, healthy))
        .thenComparing(Comparator.comparingInt(Replica::ordinal).reversed());
  }
}
