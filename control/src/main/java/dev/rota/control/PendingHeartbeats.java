package dev.rota.control;

import dev.rota.store.GroupCommit;
import dev.rota.store.WorkerRepository;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * At most one heartbeat write per worker waits for the group commit: a heartbeat that arrives while
 * its worker's last one still waits joins that write, which then records the later of their times,
 * and is answered with it. Without this, a saturated host collapsed: agents whose heartbeats timed
 * out sent them again every 2 s while the abandoned ones still waited, and with many workers
 * thousands of heartbeats (and as many threads) queued behind each other, none answered in time,
 * until every worker was lost.
 */
@Singleton
public class PendingHeartbeats {
  private final GroupCommit commits;
  private final WorkerRepository workers;
  private final ConcurrentHashMap<String, Pending> pending = new ConcurrentHashMap<>();

  public PendingHeartbeats(GroupCommit commits, WorkerRepository workers) {
    this.commits = commits;
    this.workers = workers;
  }

  private static final class Pending {
    private volatile Instant seen;
    private final CompletableFuture<Integer> done = new CompletableFuture<>();

    Pending(Instant seen) {
      this.seen = seen;
    }
  }

  /**
   * Records that {@code worker} was seen at {@code now}, once committed; returns 0 when no such
   * worker is registered.
   */
  public int beat(String worker, Instant now) {
    Pending mine = new Pending(now);
    Pending p =
        pending.merge(
            worker,
            mine,
            (queued, fresh) -> {
              if (fresh.seen.isAfter(queued.seen)) {
                queued.seen = fresh.seen;
              }
              return queued;
            });
    if (p != mine) {
      return await(p.done);
    }
    try {
      int changed =
          commits.write(
              GroupCommit.worker(worker),
              () -> {
                // Taken out as its write begins: a heartbeat from now on is not in it, and queues
                // one of its own.
                pending.remove(worker, p);
                return workers.heartbeat(worker, p.seen);
              });
      p.done.complete(changed);
      return changed;
    } catch (RuntimeException | Error e) {
      pending.remove(worker, p); // and those that joined it are answered the same, not left waiting
      p.done.completeExceptionally(e);
      throw e;
    }
  }

  private static int await(CompletableFuture<Integer> done) {
    try {
      return done.join(); // the write it joined always ends, in a commit or a failure
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }
}
