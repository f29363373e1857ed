package dev.rota.core.scheduling.placement;

/** {@code optimize-utilization}: pack, so that whole workers stay free for large VMs. */
public final class FullestFirst implements Ranker {
  @Override
  public int compare(double a, double b) {
    return Double.compare(b, a);
  }

  @Override
  public double score(double fullness, int resources) {
    return resources == 0 ? 0 : fullness / resources;
  }
}
