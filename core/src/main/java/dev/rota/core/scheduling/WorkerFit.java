package dev.rota.core.scheduling;

import java.util.function.Predicate;

/**
 * Workers in an order, answering "the first one in order with this much free": a {@link FitTree}
 * kept ordered as workers fill, or a {@link ScanFit} that orders them only when asked.
 *
 * @param <T> a worker during a placement run
 */
interface WorkerFit<T> {
  void add(T item);

  void remove(T item);

  /** The first in order with {@code request} free; null when none has. */
  T firstFit(long[] request);

  /** The first in order with {@code request} free that {@code admits}; null when none has. */
  T firstFit(long[] request, Predicate<T> admits);
}
