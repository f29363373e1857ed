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

  @AfterAll
  static void closeStack() {
    if (stack != null) {
      stack.close();
      stack = null;
    }
  }
}
