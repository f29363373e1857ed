package dev.rota.api.problem;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grpc.Status;
import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Which failures are outages (a 503 to retry) and which are defects (a 500): as the host met them
 * with PostgreSQL stopped and the Temporal server down (OutagesIT), wrapped as Micronaut Data wraps
 * them.
 */
class OutageHandlerTest {
  private static final Optional<String> DATABASE = Optional.of("the database cannot be reached");
  private static final Optional<String> TEMPORAL = Optional.of("Temporal cannot be reached");

  @Test
  void theDatabaseOutOfReachIsAnOutageHoweverDeepTheCause() {
    assertEquals(
        DATABASE,
        OutageHandler.outage(
            wrapped(
                new SQLTransientConnectionException(
                    "HikariPool-1 - Connection is not available"))));
    assertEquals(
        DATABASE,
        OutageHandler.outage(
            wrapped(
                new SQLException(
                    "Connection to 127.0.0.1:5432 refused", "08001", new ConnectException()))));
    assertEquals(
        DATABASE,
        OutageHandler.outage(
            wrapped(
                new SQLException("An I/O error occurred while sending to the backend", "08006"))));
    assertEquals(
        DATABASE,
        OutageHandler.outage(
            wrapped(new SQLException("FATAL: the database system is starting up", "57P03"))));
    assertEquals(DATABASE, OutageHandler.outage(wrapped(new SQLException("Connection is closed"))));
  }

  @Test
  void temporalOutOfReachIsAnOutageAndItsRefusalsAreNot() {
    assertEquals(
        TEMPORAL,
        OutageHandler.outage(
            wrapped(Status.UNAVAILABLE.withCause(new ConnectException()).asRuntimeException())));
    assertEquals(
        TEMPORAL, OutageHandler.outage(wrapped(Status.DEADLINE_EXCEEDED.asRuntimeException())));
    assertEquals(
        Optional.empty(),
        OutageHandler.outage(wrapped(Status.INVALID_ARGUMENT.asRuntimeException())));
  }

  @Test
  void aDefectIsNoOutage() {
    assertEquals(Optional.empty(), OutageHandler.outage(new IllegalStateException("a bug")));
    assertEquals(
        Optional.empty(),
        OutageHandler.outage(wrapped(new SQLException("duplicate key value", "23505"))));
    assertEquals(
        Optional.empty(), OutageHandler.outage(wrapped(new SQLException("syntax error", "42601"))));
  }

  @Test
  void aCommitWhoseOutcomeIsNotKnownIsNotCalledNothingChanged() {
    RuntimeException lost =
        wrapped(new SQLException("An I/O error occurred while sending to the backend", "08006"));
    RuntimeException doubt = wrapped(new dev.rota.store.CommitInDoubtException(42, null, lost));
    assertEquals(DATABASE, OutageHandler.outage(doubt), "still a 503 to retry");
    String said = OutageHandler.detail(doubt, DATABASE.get());
    org.junit.jupiter.api.Assertions.assertTrue(
        said.contains("may have been stored") && !said.contains("nothing was changed"), said);
    assertEquals(
        "the database cannot be reached; nothing was changed, try again shortly",
        OutageHandler.detail(lost, DATABASE.get()));
  }

  private static RuntimeException wrapped(Throwable cause) {
    return new io.micronaut.data.exceptions.DataAccessException(
        "Error executing SQL", new RuntimeException(cause));
  }
}
