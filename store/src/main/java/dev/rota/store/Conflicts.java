package dev.rota.store;

import io.micronaut.data.exceptions.OptimisticLockException;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Read-modify-write against rows the scheduler also writes: a stale version means someone got there
 * first, so read again and reapply, a few times, before giving up with the conflict.
 */
public final class Conflicts {
  public static final int ATTEMPTS = 5;

  private Conflicts() {}

  public static <T> T retry(Supplier<T> readModifyWrite) {
    return retry(readModifyWrite, e -> e instanceof OptimisticLockException);
  }

  /** {@link #retry(Supplier)}, for any failure {@code raced} says was a lost race. */
  public static <T> T retry(Supplier<T> readModifyWrite, Predicate<RuntimeException> raced) {
    for (int attempt = 1; ; attempt++) {
      try {
        return readModifyWrite.get();
      } catch (RuntimeException e) {
        if (!raced.test(e) || attempt >= ATTEMPTS) {
          throw e;
        }
      }
    }
  }
}
