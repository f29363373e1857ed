package dev.rota.host;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test class whose tests share one dev stack with both its agents ready: started before the first
 * test, closed (its tasks' processes ended) after the last.
 */
abstract class SharedDevStack {
  @TempDir static Path dir;
  static Stack stack;

  @BeforeAll
  static void startStack() {
    stack = Stack.withAgentsReady(dir.resolve("data"));
  }

  /**
   * For a class whose tests must not see a worker go offline: a host that a loaded machine keeps
   * from answering a heartbeat for the stack's few seconds would otherwise have its agents stop
   * their tasks at their fence, as they must in a real partition.
   */
  static void startStackWithPatientFence() {
    startStackWithPatientFence(java.util.Map.of());
  }

  /** {@link #startStackWithPatientFence()}, with these settings too. */
  static void startStackWithPatientFence(java.util.Map<String, Object> settings) {
    java.util.Map<String, Object> all =
        new java.util.HashMap<>(
            java.util.Map.of(
                "rota.workers.lost-after", "20s", "rota.workers.offline-after", "20s"));
    all.putAll(settings);
    stack = Stack.withAgentsReady(dir.resolve("data"), all);
  }

  @AfterAll
  static void closeStack() {
    if (stack != null) {
      stack.close();
      stack = null;
      Stack.removeData(dir.resolve("data"));
    }
  }
}
