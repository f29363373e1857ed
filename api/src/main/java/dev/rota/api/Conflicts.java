package dev.rota.api;

import io.micronaut.data.exceptions.OptimisticLockException;
import java.util.function.Supplier;

/**
 * Read-modify-write against rows the scheduler also writes: a stale version means someone got there
 * first, so read again and reapply, a few times, before giving up with the conflict.
 */
public final class Conflicts {
  public static final int ATTEMPTS = 5;

  private Conflicts() {}

  public static <T> T retry(Supplier<T> readModifyWrite) {
    for (int attempt = 1; ; attempt++) {
      try {
        return readModifyWrite.get();
      } catch (OptimisticLockException e) {
        if (attempt >= ATTEMPTS) {
          throw e;
        }
      }
    }
  }
}
