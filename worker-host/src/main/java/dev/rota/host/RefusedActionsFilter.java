package dev.rota.host;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;
import dev.rota.workflows.vm.VmWorkflow;

/**
 * Drops the SDK's warning, stack trace and all, for each action a VM's workflow refuses as the VM
 * stands (a stop of a stopped VM), and for each run that ends with its VM failed for good (runs
 * from before a failed VM's run stayed open): the caller was answered 409 with the reason and the
 * audit line names the action, and the VM's failure is in its events, so in the host's log they
 * only looked like crashes. Real workflow failures still show.
 */
public final class RefusedActionsFilter extends Filter<ILoggingEvent> {
  static final String LOGGER = "io.temporal.internal.sync.WorkflowExecutionHandler";

  @Override
  public FilterReply decide(ILoggingEvent event) {
    if (event.getLevel() != Level.WARN || !LOGGER.equals(event.getLoggerName())) {
      return FilterReply.NEUTRAL;
    }
    IThrowableProxy thrown = event.getThrowableProxy();
    String message = thrown == null ? null : thrown.getMessage();
    boolean vms =
        message != null
            && (message.contains("type='" + VmWorkflow.NOT_ALLOWED + "'")
                || message.contains("type='" + VmWorkflow.FAILED + "'"));
    return vms ? FilterReply.DENY : FilterReply.NEUTRAL;
  }
}
