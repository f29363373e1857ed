package dev.rota.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Writes committed together: each caller answered after its own write is stored, a failing one
 * alone failing.
 */
@MicronautTest(transactional = false)
class GroupCommitTest {
  @Inject GroupCommit commits;
  @Inject WorkerRepository workers;
  @Inject CertainCommits certain;

  @Test
  void manyWritersAreEachStoredAndOneThatFailsFailsAloneWithItsOwnError() throws Exception {
    workers.save(StoreFixtures.worker("gc-taken"));
    ExecutorService writers = Executors.newFixedThreadPool(16);
    try {
      List<Future<WorkerRow>> saved = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        String name = i == 100 ? "gc-taken" : "gc-" + i;
        saved.add(
            writers.submit(
                () ->
                    commits.write(
                        GroupCommit.worker(name), () -> workers.save(StoreFixtures.worker(name)))));
      }
      int failed = 0;
      for (int i = 0; i < saved.size(); i++) {
        try {
          WorkerRow row = saved.get(i).get();
          assertTrue(
              workers.findById(row.name()).isPresent(),
              "committed before its writer was answered: " + row.name());
        } catch (ExecutionException e) {
          failed++;
          assertEquals(100, i, "only the write of a taken name fails: " + e.getCause());
          assertTrue(
              Sql.isUniqueViolation((RuntimeException) e.getCause()), e.getCause().toString());
        }
      }
      assertEquals(1, failed);
      assertEquals(
          1,
          commits.write(
              GroupCommit.worker("gc-0"), () -> workers.heartbeat("gc-0", StoreFixtures.T0)),
          "the writer goes on after a failed batch");
    } finally {
      writers.shutdownNow();
    }
  }

  @Test
  void jointWritesAreDoneTogetherEachAnsweredItsOwnAndATakenNameFailsAlone() throws Exception {
    workers.save(StoreFixtures.worker("gc-joint-taken"));
    java.util.concurrent.atomic.AtomicInteger most =
        new java.util.concurrent.atomic.AtomicInteger();
    GroupCommit.Together<String, String> saveAll =
        names -> {
          most.accumulateAndGet(names.size(), Math::max);
          List<String> answers = new ArrayList<>();
          workers
              .saveAll(names.stream().map(StoreFixtures::worker).toList())
              .forEach(w -> answers.add("saved " + w.name()));
          return answers;
        };
    // The writer held until the first writers have queued theirs, so that one transaction holds
    // several.
    java.util.concurrent.CountDownLatch calling = new java.util.concurrent.CountDownLatch(16);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    commits.writeLater(
        GroupCommit.worker("gc-joint-hold"),
        () -> {
          try {
            release.await(60, java.util.concurrent.TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    ExecutorService writers = Executors.newFixedThreadPool(16);
    try {
      List<Future<String>> saved = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        String name = i == 5 ? "gc-joint-taken" : "gc-joint-" + i;
        saved.add(
            writers.submit(
                () -> {
                  calling.countDown();
                  return commits.write(GroupCommit.worker(name), saveAll, name);
                }));
      }
      calling.await();
      release.countDown();
      int failed = 0;
      for (int i = 0; i < saved.size(); i++) {
        try {
          String answer = saved.get(i).get();
          assertEquals("saved gc-joint-" + i, answer, "each writer gets its own item's answer");
          assertTrue(workers.findById("gc-joint-" + i).isPresent(), "committed: " + answer);
        } catch (ExecutionException e) {
          failed++;
          assertEquals(5, i, "only the write of a taken name fails: " + e.getCause());
          assertTrue(
              Sql.isUniqueViolation((RuntimeException) e.getCause()), e.getCause().toString());
        }
      }
      assertEquals(1, failed);
      assertTrue(most.get() > 1, "writes queued together were written in one call");
      assertEquals(
          "saved gc-joint-again",
          commits.write(GroupCommit.worker("gc-joint-again"), saveAll, "gc-joint-again"),
          "the writer goes on after a failed joint batch");
    } finally {
      writers.shutdownNow();
    }
  }

  @Test
  void aWriteNobodyWaitsForIsCommittedNoLaterThanTheWritesQueuedAfterIt() {
    workers.save(StoreFixtures.worker("gc-later-0"));
    commits.writeLater(
        GroupCommit.worker("gc-later-1"), () -> workers.save(StoreFixtures.worker("gc-later-1")));
    commits.write(
        GroupCommit.worker("gc-later-0"), () -> workers.heartbeat("gc-later-0", StoreFixtures.T0));
    assertTrue(
        workers.findById("gc-later-1").isPresent(),
        "committed with or before the write queued after it");
  }

  @Test
  void writesQueuedWhileItClosesAreEachCommittedAndAnswered() throws Exception {
    GroupCommit closing = new GroupCommit(certain);
    ExecutorService writers = Executors.newFixedThreadPool(8);
    try {
      List<Future<WorkerRow>> saved = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        String name = "gc-closing-" + i;
        saved.add(
            writers.submit(
                () ->
                    closing.write(
                        GroupCommit.worker(name), () -> workers.save(StoreFixtures.worker(name)))));
        if (i == 200) {
          closing.close();
        }
      }
      for (Future<WorkerRow> f : saved) {
        // A bound against hanging only: a write queued after the writer's last drain is its
        // caller's to commit.
        WorkerRow row = f.get(60, java.util.concurrent.TimeUnit.SECONDS);
        assertTrue(
            workers.findById(row.name()).isPresent(),
            "committed before its writer was answered: " + row.name());
      }
    } finally {
      writers.shutdownNow();
    }
  }
}
