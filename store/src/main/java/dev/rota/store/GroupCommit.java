package dev.rota.store;

import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Small writes from many threads (heartbeats, a VM workflow's read model, submissions, agents' task
 * reports) committed together: one writer thread takes whatever is queued and runs it in one
 * transaction, and each caller returns once the transaction holding its write has committed, as it
 * would with a transaction of its own. A commit is the expensive part of a small write (the
 * embedded H2 writes a chunk of pages to its file on every commit, PostgreSQL flushes its log), so
 * a thousand heartbeats a second cost a few commits instead of a thousand. A write that fails in a
 * batch fails the batch, which is then run again one write per transaction, so that each caller
 * gets its own answer (a name already taken fails that submission only). Should the connection be
 * lost while a batch commits, its callers learn whether it did ({@link CertainCommits}), not a
 * guess.
 */
@Singleton
public class GroupCommit {
  private static final Logger log = LoggerFactory.getLogger(GroupCommit.class);

  /**
   * At most this many writes per transaction, so that one commit never holds row locks for long.
   */
  static final int MAX_BATCH = 500;

  /** How often the writer says at DEBUG how busy it was. */
  private static final long REPORT_EVERY_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);

  /**
   * Writes of one kind that cost less done together than one by one (a JDBC batch of inserts is one
   * round trip where each insert alone is one): the writer hands every such write of its
   * transaction to one call.
   */
  @FunctionalInterface
  public interface Together<I, R> {
    /** Does the write of each item, in their order, and answers each one's result in that order. */
    List<R> writeAll(List<I> items);
  }

  /** A write to be done together with the others of its kind. */
  private record Joint<I, R>(Together<I, R> kind, I item) {}

  /** One caller's write: its work alone, or its item of a joint write. */
  private record Write<T>(
      String key, Supplier<T> work, CompletableFuture<T> done, Joint<?, T> joint) {
    Write(String key, Supplier<T> work, CompletableFuture<T> done) {
      this(key, work, done, null);
    }

    void run() {
      done.complete(work.get());
    }
  }

  /** Queued by {@link #close}: the writer commits what came before it and stops. */
  private static final Write<Object> STOP = new Write<>("", () -> null, new CompletableFuture<>());

  private static final Comparator<Write<?>> BY_KEY = Comparator.comparing(Write::key);

  private final CertainCommits certain;

  /**
   * Threads that settle commits in doubt, so that the writer need not wait for the database to come
   * back.
   */
  private final ExecutorService settlers =
      Executors.newCachedThreadPool(
          runnable -> {
            Thread t = new Thread(runnable, "commit-in-doubt");
            t.setDaemon(true);
            return t;
          });

  private final BlockingQueue<Write<?>> queue = new LinkedBlockingQueue<>();
  private final Thread writer;
  private volatile boolean closed;

  public GroupCommit(CertainCommits certain) {
    this.certain = certain;
    this.writer = new Thread(this::writeForever, "group-commit");
    this.writer.setDaemon(true);
    this.writer.start();
  }

  /**
   * Runs {@code work} (store calls, no I/O of other kinds) in a transaction shared with other
   * callers' and returns its result once that transaction committed; rethrows what {@code work}
   * threw. The writes of a batch run in the order of their {@code lockKey}s, the row they lock
   * first (e.g. {@code "workers/" + name}), as the scheduler's own transactions take them: two
   * transactions that take row locks in one order cannot deadlock.
   */
  public <T> T write(String lockKey, Supplier<T> work) {
    return await(new Write<>(lockKey, work, new CompletableFuture<>()));
  }

  /**
   * {@link #write} of one item of a kind of write done {@link Together}: the writer gives {@code
   * kind} every item of its transaction at once, at the place of the first one's {@code lockKey}.
   * Should the transaction fail, each item is written again alone, so that a failure is its own
   * caller's only.
   */
  public <I, R> R write(String lockKey, Together<I, R> kind, I item) {
    return await(
        new Write<>(
            lockKey,
            () -> kind.writeAll(List.of(item)).get(0),
            new CompletableFuture<>(),
            new Joint<>(kind, item)));
  }

  private <T> T await(Write<T> w) {
    if (closed) {
      return certain.write(w.work());
    }
    queue.add(w);
    // close() sets closed before it queues STOP, and the writer's last drain comes after STOP: a
    // write that sees closed still false was queued before that drain and will be committed; one
    // that sees it true and can take its write back was queued after, and nobody else will commit
    // it.
    if (closed && queue.remove(w)) {
      return certain.write(w.work());
    }
    try {
      return w.done().get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a commit", e);
    }
  }

  /**
   * Queues {@code work} to be committed with the next batch, without waiting for it: for writes
   * nobody needs to see done, whose loss is repaired anyway (outbox entries already acted on:
   * should their removal be lost, the action is taken again and found done). A failure is logged at
   * DEBUG. The future returned completes when the write is over: committed, failed, or dropped as
   * this closes.
   */
  public CompletableFuture<?> writeLater(String lockKey, Runnable work) {
    if (closed) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Object> done = new CompletableFuture<>();
    Write<Object> w =
        new Write<>(
            lockKey,
            () -> {
              work.run();
              return null;
            },
            done);
    queue.add(w);
    if (closed && queue.remove(w)) {
      return CompletableFuture.completedFuture(
          null); // queued after the writer's last drain (see write)
    }
    return done.handle(
        (result, failure) -> {
          if (failure != null) {
            log.debug("a write nobody waited for failed: {}", failure.toString());
          }
          return null;
        });
  }

  /** The lock key of a write that first locks worker {@code name}'s row. */
  public static String worker(String name) {
    return "workers/" + name;
  }

  /** The lock key of a write that first locks VM {@code name}'s row. */
  public static String vm(String name) {
    return "vms/" + name;
  }

  private void writeForever() {
    List<Write<?>> batch = new ArrayList<>();
    boolean stopping = false;
    long commits = 0;
    long writes = 0;
    long busyNanos = 0;
    long longestNanos = 0;
    long windowStart = System.nanoTime();
    while (!stopping) {
      try {
        batch.add(queue.take());
        queue.drainTo(batch, MAX_BATCH - 1);
        stopping = batch.remove(STOP);
        batch.sort(BY_KEY);
        long began = System.nanoTime();
        commit(batch);
        long took = System.nanoTime() - began;
        commits++;
        writes += batch.size();
        busyNanos += took;
        longestNanos = Math.max(longestNanos, took);
        if (began - windowStart > REPORT_EVERY_NANOS && log.isDebugEnabled()) {
          log.debug(
              "{} commits of {} writes in {} ms, {} ms of it committing, the longest {} ms",
              commits,
              writes,
              (began + took - windowStart) / 1_000_000,
              busyNanos / 1_000_000,
              longestNanos / 1_000_000);
          commits = 0;
          writes = 0;
          busyNanos = 0;
          longestNanos = 0;
          windowStart = began + took;
        }
      } catch (InterruptedException e) {
        log.warn("group commit writer interrupted; carrying on");
      } catch (RuntimeException | Error e) {
        batch.forEach(w -> w.done().completeExceptionally(e));
      } finally {
        batch.clear();
      }
    }
    List<Write<?>> rest = new ArrayList<>();
    queue.drainTo(rest);
    rest.sort(BY_KEY);
    commit(rest);
  }

  private void commit(List<Write<?>> batch) {
    if (batch.isEmpty()) {
      return;
    }
    if (batch.size() > 1) {
      try {
        certain.attempt(() -> staged(batch)).forEach(Write::run);
        return;
      } catch (CommitInDoubtException doubt) {
        settleLater(doubt, batch);
        return;
      } catch (RuntimeException e) {
        if (Sql.isConnectionLost(e)) {
          // Nothing committed, and one by one each would wait for the database in turn.
          batch.forEach(w -> w.done().completeExceptionally(e));
          return;
        }
        log.debug(
            "a batch of {} writes failed ({}); committing them one by one",
            batch.size(),
            e.toString());
      }
    }
    for (Write<?> w : batch) {
      try {
        certain.attempt(() -> staged(List.of(w))).forEach(Write::run);
      } catch (CommitInDoubtException doubt) {
        settleLater(doubt, List.of(w));
      } catch (RuntimeException | Error e) {
        w.done().completeExceptionally(e);
      }
    }
  }

  /**
   * The connection was lost while {@code batch} was committing: its callers wait while another
   * thread finds out whether it did, and the writer goes on with the next writes.
   */
  private void settleLater(CommitInDoubtException doubt, List<Write<?>> batch) {
    List<Write<?>> writes = List.copyOf(batch);
    settlers.execute(
        () -> {
          try {
            List<Write<?>> results = certain.settle(doubt);
            results.forEach(Write::run);
          } catch (RuntimeException e) {
            writes.forEach(w -> w.done().completeExceptionally(e));
          }
        });
  }

  /** Does the work of each write now and keeps its result to hand over after the commit. */
  private static List<Write<?>> staged(List<Write<?>> batch) {
    // Completed only after the commit: a caller must never see its write before it is durable.
    Map<Together<?, ?>, List<Write<?>>> joints = new IdentityHashMap<>();
    for (Write<?> w : batch) {
      if (w.joint() != null) {
        joints.computeIfAbsent(w.joint().kind(), k -> new ArrayList<>()).add(w);
      }
    }
    List<Write<?>> results = new ArrayList<>(batch.size());
    for (Write<?> w : batch) {
      if (w.joint() == null) {
        results.add(staged(w));
      } else {
        List<Write<?>> together = joints.remove(w.joint().kind());
        if (together != null) {
          results.addAll(stagedTogether(together));
        }
      }
    }
    return results;
  }

  /** Does the writes of one {@link Together} kind in one call and keeps each one's result. */
  @SuppressWarnings("unchecked")
  private static <I, R> List<Write<R>> stagedTogether(List<Write<?>> writes) {
    List<I> items = new ArrayList<>(writes.size());
    for (Write<?> w : writes) {
      items.add((I) w.joint().item());
    }
    Together<I, R> kind = (Together<I, R>) writes.get(0).joint().kind();
    List<R> answers = kind.writeAll(items);
    if (answers.size() != items.size()) {
      throw new IllegalStateException(
          answers.size() + " answers to a joint write of " + items.size() + " items");
    }
    List<Write<R>> results = new ArrayList<>(writes.size());
    for (int i = 0; i < writes.size(); i++) {
      Write<R> w = (Write<R>) writes.get(i);
      R answer = answers.get(i);
      results.add(new Write<>(w.key(), () -> answer, w.done()));
    }
    return results;
  }

  /** Does the work now and keeps its result to hand over after the commit. */
  private static <T> Write<T> staged(Write<T> w) {
    T result = w.work().get();
    return new Write<>(w.key(), () -> result, w.done());
  }

  @PreDestroy
  void close() throws InterruptedException {
    closed = true;
    queue.add(STOP);
    writer.join(10_000);
    settlers.shutdown();
  }
}
