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

  /** One ranker per profile: adding a profile is one class and one line here. */
  Map<SchedulerProfile, Ranker> BY_PROFILE =
      Map.of(
          SchedulerProfile.OPTIMIZE_UTILIZATION, new FullestFirst(),
          SchedulerProfile.DISTRIBUTE_LOAD, new EmptiestFirst());

  static Ranker of(SchedulerProfile profile) {
    return BY_PROFILE.get(profile);
  }
}
