package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ch.qos.logback.classic.Level;
import ch.qos.logback.core.spi.FilterReply;
import io.temporal.failure.ApplicationFailure;
import org.junit.jupiter.api.Test;

class RefusedActionsFilterTest {
  private static FilterReply decide(String logger, Level level, Throwable thrown) {
    return new RefusedActionsFilter()
        .decide(LogEvents.of(logger, level, "Workflow execution failure", thrown));
  }

  @Test
  void aRefusedActionIsDroppedAndEveryOtherFailureKept() {
    Throwable refused =
        ApplicationFailure.newNonRetryableFailure("cannot stop VM a: it is stopped", "NotAllowed");
    assertEquals(FilterReply.DENY, decide(RefusedActionsFilter.LOGGER, Level.WARN, refused));
    assertEquals(
        FilterReply.DENY,
        decide(
            RefusedActionsFilter.LOGGER,
            Level.WARN,
            ApplicationFailure.newNonRetryableFailure("exited with code 3", "VmFailed")),
        "a run that ended with its VM failed: the failure is the VM's, in its events");
    assertEquals(
        FilterReply.NEUTRAL,
        decide(
            RefusedActionsFilter.LOGGER,
            Level.WARN,
            ApplicationFailure.newFailure("boom", "IllegalStateException")),
        "a real failure of a workflow");
    assertEquals(
        FilterReply.NEUTRAL, decide("dev.rota.scheduler", Level.WARN, refused), "another logger");
    assertEquals(FilterReply.NEUTRAL, decide(RefusedActionsFilter.LOGGER, Level.WARN, null));
  }
}
