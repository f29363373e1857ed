package dev.rota.core.failure;

import java.util.Optional;
import java.util.function.Predicate;

/**
 * A failure and the causes it wraps, walked once, outermost first, safe against a cause that is
 * itself.
 */
public final class Causes {
  private Causes() {}

  /** The first of the failure's causes (itself included) that is a {@code type}. */
  public static <T extends Throwable> Optional<T> first(Throwable failure, Class<T> type) {
    return firstThat(failure, type::isInstance).map(type::cast);
  }

  /** Whether the failure or one of its causes is {@code what}. */
  public static boolean any(Throwable failure, Predicate<Throwable> what) {
    return firstThat(failure, what).isPresent();
  }

  /** The innermost cause, or the failure itself when it wraps none. */
  public static Throwable root(Throwable failure) {
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root;
  }

  private static Optional<Throwable> firstThat(Throwable failure, Predicate<Throwable> what) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (what.test(t)) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }
}
