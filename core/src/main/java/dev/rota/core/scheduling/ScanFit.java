package dev.rota.core.scheduling;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Workers ranked only when a VM asks: each question looks at every one. For the few VMs whose order
 * is their own (their affinities added to the profile's score), this costs less than a {@link
 * FitTree} that every placement of every other VM would have to keep ordered.
 *
 * @param <T> a worker during a placement run
 */
final class ScanFit<T> implements WorkerFit<T> {
  private final Comparator<T> order;
  private final Function<T, long[]> free;
  private final List<T> items = new ArrayList<>();

  /**
   * @param free what a worker has free now, read at each question
   */
  ScanFit(Comparator<T> order, Function<T, long[]> free) {
    this.order = order;
    this.free = free;
  }

  @Override
  public void add(T item) {
    items.add(item);
  }

  @Override
  public void remove(T item) {
    items.remove(item);
  }

  @Override
  public T firstFit(long[] request) {
    return firstFit(request, null);
  }

  @Override
  public T firstFit(long[] request, Predicate<T> admits) {
    T best = null;
    for (T item : items) {
      if (FitTree.covers(free.apply(item), request)
          && (best == null || order.compare(item, best) < 0)
          && (admits == null || admits.test(item))) {
        best = item;
      }
    }
    return best;
  }
}
