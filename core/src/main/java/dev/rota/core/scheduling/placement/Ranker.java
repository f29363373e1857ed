package dev.rota.core.scheduling.placement;

import dev.rota.core.model.SchedulerProfile;
import java.util.Map;

/**
 * The order in which a profile prefers the workers that may take a VM, by how full they are (the
 * sum over their resources of the fraction held); ties go to the name that sorts first.
 */
public interface Ranker {
  /**
   * Whether a worker with {@code fullness} {@code a} is preferred to one with {@code b}: negative
   * if so.
   */
  int compare(double a, double b);

  /**
   * How much the profile wants a worker of {@code fullness} over {@code resources} resources, from
   * 0 to 1: what a VM's affinities ({@link dev.rota.core.model.Affinity}) are added to, as Nomad
   * adds its scores, when they rank the workers with the profile.
   */
  double score(double fullness, int resources);

  /** One ranker per profile: adding a profile is one class and one line here. */
  Map<SchedulerProfile, Ranker> BY_PROFILE =
      Map.of(
          SchedulerProfile.OPTIMIZE_UTILIZATION, new FullestFirst(),
          SchedulerProfile.DISTRIBUTE_LOAD, new EmptiestFirst());

  static Ranker of(SchedulerProfile profile) {
    return BY_PROFILE.get(profile);
  }
}
