package dev.rota.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.UUID;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The database's connection lost while a write commits, on a real TCP connection to a database
 * server (H2's here, PostgreSQL's in {@link PostgresCommitInDoubtTest}), through {@link
 * CuttingProxy}: the caller is told what became of its write, whichever way it went, never that a
 * stored write was refused.
 */
@MicronautTest(transactional = false)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CommitInDoubtTest implements TestPropertyProvider {
  @Inject GroupCommit commits;
  @Inject CertainCommits certain;
  @Inject WorkerRepository workers;
  @Inject javax.sql.DataSource dataSource;

  /** Names of this run's own, as the PostgreSQL database outlives a run. */
  private final String run = UUID.randomUUID().toString().substring(0, 8);

  private Server database;
  CuttingProxy proxy;

  @Override
  public Map<String, String> getProperties() {
    try {
      database = Server.createTcpServer("-tcpPort", "0", "-ifNotExists").start();
      proxy = CuttingProxy.to(database.getPort());
    } catch (Exception e) {
      throw new IllegalStateException("cannot start H2's server and the proxy", e);
    }
    return Map.of(
        "datasources.default.url",
        "jdbc:h2:tcp://127.0.0.1:"
            + proxy.port()
            + "/mem:doubt-"
            + UUID.randomUUID()
            + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH;DB_CLOSE_DELAY=-1",
        // Connections made when asked for only: none is made behind the test's back while it picks
        // one to cut.
        "datasources.default.minimum-idle",
        "0");
  }

  @AfterAll
  void stop() throws Exception {
    proxy.close();
    if (database != null) {
      database.stop();
    }
  }

  /**
   * H2's client prepares COMMIT on a connection's first commit and executes it in a second request:
   * a cut after the next answer must find a connection that committed before, or it cuts between
   * the two. The pool hands a thread the connection it used last, so each writing thread commits
   * once first.
   */
  @org.junit.jupiter.api.BeforeEach
  void connectionsThatCommittedBefore() throws java.sql.SQLException {
    // The connections the migrations used are let go: each writing thread then commits first on a
    // connection of its own, which it is handed again.
    dataSource
        .unwrap(com.zaxxer.hikari.HikariDataSource.class)
        .getHikariPoolMXBean()
        .softEvictConnections();
    certain.write(() -> workers.findById("doubt-warm-" + run));
    commits.write(
        GroupCommit.worker("doubt-warm-" + run), () -> workers.findById("doubt-warm-" + run));
  }

  @Test
  void aWriteWhoseCommitWasMadeButNeverAnsweredIsAnsweredAsStored() {
    int cutsBefore = proxy.cuts();
    WorkerRow row =
        commits.write(
            GroupCommit.worker("doubt-made-" + run),
            () -> {
              WorkerRow saved = workers.save(StoreFixtures.worker("doubt-made-" + run));
              proxy.cutAfterTheNextAnswer();
              return saved;
            });
    assertEquals(cutsBefore + 1, proxy.cuts(), "the connection was cut as COMMIT was answered");
    assertEquals("doubt-made-" + run, row.name());
    assertTrue(workers.findById("doubt-made-" + run).isPresent(), "stored, as its caller was told");
  }

  @Test
  void aWriteWhoseCommitNeverReachedTheDatabaseFailsAsNotStored() {
    int cutsBefore = proxy.cuts();
    RuntimeException failed =
        assertThrows(
            RuntimeException.class,
            () ->
                commits.write(
                    GroupCommit.worker("doubt-lost-" + run),
                    () -> {
                      WorkerRow saved = workers.save(StoreFixtures.worker("doubt-lost-" + run));
                      proxy.cutBeforeTheNextRequest();
                      return saved;
                    }));
    assertEquals(
        cutsBefore + 1, proxy.cuts(), "the connection was cut before COMMIT reached the database");
    assertTrue(
        Sql.isConnectionLost(failed), "an outage, which the API answers with a 503: " + failed);
    assertFalse(failed instanceof CommitInDoubtException, "settled, not in doubt: " + failed);
    assertTrue(
        workers.findById("doubt-lost-" + run).isEmpty(), "not stored, as its caller was told");
  }

  @Test
  void aTransactionOfItsOwnIsSettledAlike() {
    int cutsBefore = proxy.cuts();
    String stored =
        certain.write(
            () -> {
              workers.save(StoreFixtures.worker("doubt-own-" + run));
              proxy.cutAfterTheNextAnswer();
              return "doubt-own-" + run;
            });
    assertEquals(cutsBefore + 1, proxy.cuts());
    assertTrue(workers.findById(stored).isPresent());
  }
}
