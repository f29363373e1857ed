package dev.rota.agent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentThreadsTest {

  /**
   * A guest's boot interrupted by the agent's stop still finishes what it was writing; whoever
   * stopped the agent may remove its folder next, so the stop returns only after that.
   */
  @Test
  void closingWaitsForTheWorkItInterrupts(@TempDir Path dir) throws Exception {
    AgentThreads threads = AgentThreads.sharedBy(2);
    CountDownLatch working = new CountDownLatch(1);
    Path written = dir.resolve("written-after-interrupt");
    for (var pool : java.util.List.of(threads.requests(), threads.timers(), threads.checks())) {
      pool.execute(
          () -> {
            working.countDown();
            try {
              Thread.sleep(60_000);
            } catch (InterruptedException e) {
              try {
                Thread.sleep(200); // the last writes of interrupted work
                Files.writeString(
                    written,
                    "late",
                    java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
              } catch (Exception ignored) {
                // the test's assertion says it
              }
            }
          });
    }
    assertTrue(working.await(10, TimeUnit.SECONDS));

    threads.close();

    assertTrue(Files.exists(written), "the interrupted work ended before close returned");
    assertTrue(threads.requests().isTerminated());
    assertTrue(threads.timers().isTerminated());
    assertTrue(threads.checks().isTerminated());
  }
}
