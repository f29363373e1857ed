package dev.rota.core.scheduling.placement;

/** {@code distribute-load}: spread, so that a worker lost takes as few VMs with it as it can. */
public final class EmptiestFirst implements Ranker {
  @Override
  public int compare(double a, double b) {
    return Double.compare(a, b);
  }

  @Override
  public double score(double fullness, int resources) {
    return resources == 0 ? 1 : 1 - fullness / resources;
  }
}
