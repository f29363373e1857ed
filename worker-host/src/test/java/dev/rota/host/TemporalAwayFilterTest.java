package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ch.qos.logback.classic.Level;
import ch.qos.logback.core.spi.FilterReply;
import io.grpc.Status;
import org.junit.jupiter.api.Test;

class TemporalAwayFilterTest {
  private static final String POLLER = "io.temporal.internal.worker.BasePoller";

  private static FilterReply decide(String logger, Level level, Throwable thrown) {
    return new TemporalAwayFilter()
        .decide(LogEvents.of(logger, level, "Failure in poller thread", thrown));
  }

  @Test
  void aPollThatFoundTemporalAwayOrWasCancelledByItIsDroppedAndEveryOtherFailureKept() {
    Throwable away = Status.UNAVAILABLE.withDescription("io exception").asRuntimeException();
    assertEquals(FilterReply.DENY, decide(POLLER, Level.WARN, away));
    assertEquals(
        FilterReply.DENY,
        decide(POLLER, Level.WARN, new IllegalStateException("poll", away)),
        "as a cause too");
    assertEquals(
        FilterReply.DENY,
        decide(
            POLLER,
            Level.WARN,
            Status.CANCELLED.withDescription("context canceled").asRuntimeException()),
        "a poll the server cancelled as it went away or came back");
    assertEquals(
        FilterReply.DENY,
        decide(
            POLLER,
            Level.WARN,
            Status.UNKNOWN
                .withDescription("something went wrong, please retry (53cb9dcc)")
                .asRuntimeException()),
        "a poll that failed inside the server as it came back");
    assertEquals(
        FilterReply.DENY,
        decide(
            POLLER,
            Level.WARN,
            Status.UNKNOWN.withDescription("channel closed").asRuntimeException()),
        "a poll whose connection the server's end closed as it was killed");
    assertEquals(
        FilterReply.NEUTRAL,
        decide(POLLER, Level.WARN, Status.UNKNOWN.withDescription("other").asRuntimeException()),
        "an unknown failure of another kind shows");
    assertEquals(
        FilterReply.NEUTRAL,
        decide(
            POLLER,
            Level.WARN,
            Status.CANCELLED.withDescription("Thread interrupted").asRuntimeException()),
        "a poll cancelled here is no outage");
    assertEquals(
        FilterReply.NEUTRAL,
        decide(POLLER, Level.WARN, Status.PERMISSION_DENIED.asRuntimeException()),
        "a poll refused for another reason shows");
    assertEquals(
        FilterReply.NEUTRAL,
        decide("dev.rota.host.temporal.TemporalOutageWatch", Level.WARN, away),
        "the host's own word on the outage shows");
    assertEquals(FilterReply.NEUTRAL, decide(POLLER, Level.ERROR, away), "an error shows");
  }
}
