package dev.rota.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.rota.store.GroupCommit;
import dev.rota.store.WorkerRepository;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Heartbeats that arrive while their worker's last one waits for the commit share its write. */
class PendingHeartbeatsTest {
  private final CountDownLatch commitFree = new CountDownLatch(1);
  private final AtomicInteger writes = new AtomicInteger();
  private final List<Instant> recorded = new CopyOnWriteArrayList<>();

  /** A group commit busy with others' writes until {@link #commitFree} opens. */
  private final GroupCommit busy =
      new GroupCommit(null) {
        @Override
        public <T> T write(String lockKey, Supplier<T> work) {
          writes.incrementAndGet();
          try {
            commitFree.await();
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
          return work.get();
        }
      };

  private final WorkerRepository workers =
      (WorkerRepository)
          Proxy.newProxyInstance(
              WorkerRepository.class.getClassLoader(),
              new Class<?>[] {WorkerRepository.class},
              (proxy, method, args) -> {
                if (method.getName().equals("heartbeat")) {
                  recorded.add((Instant) args[1]);
                  return "w".equals(args[0]) ? 1 : 0;
                }
                throw new UnsupportedOperationException(method.getName());
              });

  private final PendingHeartbeats heartbeats = new PendingHeartbeats(busy, workers);

  @Test
  void heartbeatsQueuedBehindABusyCommitAreOneWriteOfTheLatestTimeAndAllAreAnswered()
      throws Exception {
    Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
    List<Thread> callers = new ArrayList<>();
    List<CompletableFuture<Integer>> answers = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      Instant at = t0.plusSeconds(i);
      CompletableFuture<Integer> answer = new CompletableFuture<>();
      answers.add(answer);
      Thread caller = new Thread(() -> answer.complete(heartbeats.beat("w", at)));
      callers.add(caller);
      caller.start();
      awaitParked(caller); // in order: the first queues the write, the others join it
    }
    commitFree.countDown();
    for (CompletableFuture<Integer> answer : answers) {
      assertEquals(1, answer.get(10, TimeUnit.SECONDS), "every heartbeat answered as recorded");
    }
    assertEquals(1, writes.get(), "one write for the twenty");
    assertEquals(List.of(t0.plusSeconds(19)), recorded, "of the latest time");

    assertEquals(
        1,
        heartbeats.beat("w", t0.plusSeconds(30)),
        "a heartbeat after that write is one of its own");
    assertEquals(2, writes.get());
  }

  @Test
  void aWorkerNobodyRegisteredIsAnsweredZeroAndAFailedWriteFailsEveryHeartbeatThatJoinedIt() {
    commitFree.countDown();
    assertEquals(0, heartbeats.beat("nobody", Instant.parse("2026-01-01T00:00:00Z")));
    PendingHeartbeats failing =
        new PendingHeartbeats(
            new GroupCommit(null) {
              @Override
              public <T> T write(String lockKey, Supplier<T> work) {
                throw new IllegalStateException("the database is away");
              }
            },
            workers);
    assertThrows(
        IllegalStateException.class,
        () -> failing.beat("w", Instant.parse("2026-01-01T00:00:00Z")));
    assertThrows(
        IllegalStateException.class,
        () -> failing.beat("w", Instant.parse("2026-01-01T00:00:01Z")),
        "nothing left pending by the failure");
  }

  private static void awaitParked(Thread t) throws InterruptedException {
    for (int i = 0; i < 10_000 && t.getState() != Thread.State.WAITING; i++) {
      Thread.sleep(1);
    }
    assertEquals(Thread.State.WAITING, t.getState(), "the caller waits for the commit");
  }
}
