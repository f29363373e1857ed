package dev.rota.host;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;
import dev.rota.workflows.vm.VmWorkflow;

/**
 * Drops the SDK's warning, stack trace and all, for each action a VM's workflow refuses as the VM
 * stands (a stop of a stopped VM): the caller was answered 409 with the reason and the audit line
 * names the action, so in the host's log it only looked like a crash. Real workflow failures still
 * show.
 */
public final class RefusedActionsFilter extends Filter<ILoggingEvent> {
  static final String LOGGER = "io.temporal.internal.sync.WorkflowExecutionHandler";

  @Override
  public FilterReply decide(ILoggingEvent event) {
    if (event.getLevel() != Level.WARN || !LOGGER.equals(event.getLoggerName())) {
      return FilterReply.NEUTRAL;
    }
    IThrowableProxy thrown = event.getThrowableProxy();
    boolean refused =
        thrown != null
            && thrown.getMessage() != null
            && thrown.getMessage().contains("type='" + VmWorkflow.NOT_ALLOWED + "'");
    return refused ? FilterReply.DENY : FilterReply.NEUTRAL;
  }
}
