package dev.rota.control;

import dev.rota.store.VmRow;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The replicas this host's set passes asked to delete lately. A set being deleted, or scaled down,
 * runs a pass each time one of its replicas is gone; without this, every pass would ask each
 * replica still there again, a signal each, while their workflows are already deleting them. A
 * replica is asked again once its workflow was started anew ({@link WorkflowKeeper}: Temporal lost
 * it, and the request with it), or once {@link #AGAIN} has passed, longer than a large set takes to
 * go (another host started it anew).
 */
@Singleton
public class AskedDeletions {
  static final Duration AGAIN = Duration.ofMinutes(10);

  private final Map<String, Instant> asked = new ConcurrentHashMap<>();

  /** When the asks older than {@link #AGAIN} were last forgotten. */
  private volatile Instant prunedAt = Instant.EPOCH;

  /**
   * Whether {@code vm} is to be asked to delete itself now: true unless it was {@link #asked}
   * within {@link #AGAIN}. A VM made anew under the same name is another VM.
   */
  boolean due(VmRow vm, Instant now) {
    Instant before = asked.get(key(vm));
    return before == null || !before.plus(AGAIN).isAfter(now);
  }

  /** Notes that {@code vm}'s workflow took the request to delete it {@code now}. */
  void asked(VmRow vm, Instant now) {
    if (now.isAfter(prunedAt.plus(AGAIN))) {
      prunedAt = now;
      asked.values().removeIf(at -> at.plus(AGAIN).isBefore(now));
    }
    asked.put(key(vm), now);
  }

  /** Forgets that {@code vm} was asked: its workflow was started anew, without the request. */
  void forget(VmRow vm) {
    asked.remove(key(vm));
  }

  private static String key(VmRow vm) {
    return vm.name() + "@" + vm.createdAt();
  }
}
