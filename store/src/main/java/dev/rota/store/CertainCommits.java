package dev.rota.store;

import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Transactions that find out whether they committed when the database's answer to COMMIT is lost
 * (the server or the network going away while it is under way; PostgreSQL may have made the
 * transaction durable and then lost the connection before saying so). Telling the caller "nothing
 * was stored" then would be a lie half the time: a submission answered 503 would be stored without
 * its workflow, never to move. So each transaction also writes a mark, a row with a fresh random id
 * (64 bits: two marks kept at once sharing one is as likely as not in 10^14 transactions); when the
 * connection is lost, the mark is looked up once the database answers again: there, the transaction
 * committed and its caller gets its result; missing, it did not, and the caller gets the failure.
 * An embedded H2 (dev mode) is not marked: its commit cannot go unanswered while this process
 * lives.
 */
@Singleton
public class CertainCommits {
  private static final Logger log = LoggerFactory.getLogger(CertainCommits.class);

  /**
   * How long the database is asked about a commit in doubt before the caller is told it is not
   * known: about as long as an HTTP client waits for an answer, and longer than a database
   * restarts.
   */
  static final Duration PATIENCE = Duration.ofSeconds(30);

  /**
   * Longer than the pool's window (500 ms) in which a connection used last is lent again unchecked:
   * a connection the lost one left broken in the pool is then checked and dropped, not lent to
   * every look.
   */
  private static final Duration BETWEEN_LOOKS = Duration.ofSeconds(1);

  /** Marks are kept this long: a doubt is settled, or given up, well within it. */
  static final Duration KEPT = Duration.ofMinutes(10);

  /**
   * Every this many marks, the transaction also removes the marks older than {@link #KEPT}: a scan
   * of at most ten minutes' marks, as an index on their time would cost every mark a second insert.
   */
  private static final long SWEEP_EVERY = 1_000;

  private final TransactionOperations<Connection> tx;
  private final Clock clock;
  private final AtomicLong marks = new AtomicLong();

  /** Whether the database is reached over a network, known at the first transaction. */
  private volatile Boolean networked;

  public CertainCommits(TransactionOperations<Connection> tx, Clock clock) {
    this.tx = tx;
    this.clock = clock;
  }

  /**
   * Runs {@code work} in a transaction and returns its result once committed, or throws what failed
   * it; should the connection be lost, waits for the database to say whether it committed (up to
   * {@link #PATIENCE}; then {@link CommitInDoubtException}).
   */
  public <T> T write(Supplier<T> work) {
    try {
      return attempt(work);
    } catch (CommitInDoubtException doubt) {
      return settle(doubt);
    }
  }

  /**
   * Runs {@code work} in a transaction with a mark; throws {@link CommitInDoubtException} if the
   * connection was lost while committing, to be {@link #settle settled} (by another thread, if this
   * one has other work). A connection lost before (or never made) is thrown as it is: nothing
   * committed.
   */
  public <T> T attempt(Supplier<T> work) {
    long mark = ThreadLocalRandom.current().nextLong();
    Object[] result = new Object[1];
    boolean[] committing = new boolean[1];
    boolean[] marked = new boolean[1];
    try {
      return tx.executeWrite(
          status -> {
            // First in the transaction: whatever the work's last statement is, COMMIT comes after
            // the mark.
            marked[0] = marks(tx.getConnection());
            if (marked[0]) {
              mark(tx.getConnection(), mark);
            }
            T done = work.get();
            result[0] = done;
            committing[0] = true;
            return done;
          });
    } catch (RuntimeException e) {
      if (marked[0] && committing[0] && Sql.isConnectionLost(e)) {
        throw new CommitInDoubtException(mark, result[0], e);
      }
      throw e;
    }
  }

  /**
   * Whether transactions on this database are marked: not on an embedded one (H2 in this process),
   * whose commit cannot go unanswered while this process lives, and which would pay a write on
   * every commit.
   */
  private boolean marks(Connection connection) {
    Boolean known = networked;
    if (known == null) {
      try {
        String url = connection.getMetaData().getURL();
        known =
            !url.startsWith("jdbc:h2:")
                || url.startsWith("jdbc:h2:tcp:")
                || url.startsWith("jdbc:h2:ssl:");
      } catch (SQLException e) {
        known = true;
      }
      networked = known;
    }
    return known;
  }

  /**
   * The outcome of a transaction in doubt: its result if it committed, else the failure that lost
   * it; {@code doubt} itself if the database did not answer within {@link #PATIENCE}.
   */
  @SuppressWarnings("unchecked")
  public <T> T settle(CommitInDoubtException doubt) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (true) {
      Boolean committed = null;
      try {
        committed = tx.executeRead(status -> found(tx.getConnection(), doubt.mark()));
      } catch (RuntimeException e) {
        if (!Sql.isConnectionLost(e)) {
          throw e;
        }
        log.debug("a commit in doubt: the database does not answer yet ({})", e.toString());
      }
      if (committed != null) {
        log.info(
            "a commit in doubt (connection lost: {}) {}",
            doubt.lost().toString(),
            committed ? "had committed" : "had not committed");
        if (committed) {
          return (T) doubt.result();
        }
        throw doubt.lost();
      }
      if (System.nanoTime() > deadline) {
        log.warn(
            "a commit in doubt not settled: the database did not answer for {} s",
            PATIENCE.toSeconds());
        throw doubt;
      }
      try {
        Thread.sleep(BETWEEN_LOOKS.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw doubt;
      }
    }
  }

  private void mark(Connection connection, long mark) {
    OffsetDateTime now = OffsetDateTime.now(clock).withOffsetSameInstant(ZoneOffset.UTC);
    try {
      try (PreparedStatement insert =
          connection.prepareStatement("INSERT INTO commit_marks (id, marked_at) VALUES (?, ?)")) {
        insert.setLong(1, mark);
        insert.setObject(2, now);
        insert.executeUpdate();
      }
      if (marks.incrementAndGet() % SWEEP_EVERY == 0) {
        try (PreparedStatement sweep =
            connection.prepareStatement("DELETE FROM commit_marks WHERE marked_at < ?")) {
          sweep.setObject(1, now.minus(KEPT));
          sweep.executeUpdate();
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot mark a transaction", e);
    }
  }

  private static boolean found(Connection connection, long mark) {
    try (PreparedStatement select =
        connection.prepareStatement("SELECT 1 FROM commit_marks WHERE id = ?")) {
      select.setLong(1, mark);
      try (ResultSet rows = select.executeQuery()) {
        return rows.next();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot look up a transaction's mark", e);
    }
  }
}
