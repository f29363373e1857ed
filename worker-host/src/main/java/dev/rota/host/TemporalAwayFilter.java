package dev.rota.host;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;

/**
 * Drops the SDK's pollers' warnings, stack trace and all, for each poll that failed because the
 * Temporal server was out of reach (gRPC {@code UNAVAILABLE}, or {@code UNKNOWN: channel closed}
 * when its connection dropped in the middle of a poll), ended the poll as it went away or came back
 * ({@code CANCELLED: context canceled}, the server's own cancel), or failed inside as it came back
 * on its state ({@code UNKNOWN: something went wrong, please retry (id)}: the server's word for an
 * internal error, whose cause its own log holds under that id): a hundred and more a minute from
 * every poller while it is away, where the host's outage watch says it once and again when it is
 * back. A poll failing for another reason still shows.
 */
public final class TemporalAwayFilter extends Filter<ILoggingEvent> {
  static final String POLLERS = "io.temporal.internal.worker.";

  /** A poll the server cancelled, as it does with those under way when it stops or restarts. */
  static final String SERVER_CANCELLED = "CANCELLED: context canceled";

  /** An internal error of the server's, as it tells its clients, masked, with an id. */
  static final String SERVER_FAILED = "UNKNOWN: something went wrong, please retry";

  /** The connection to the server closed under a poll under way: it stopped or was killed. */
  static final String CHANNEL_CLOSED = "UNKNOWN: channel closed";

  @Override
  public FilterReply decide(ILoggingEvent event) {
    if (event.getLevel() != Level.WARN
        || !event.getLoggerName().startsWith(POLLERS)
        || !event.getLoggerName().endsWith("Poller")) {
      return FilterReply.NEUTRAL;
    }
    for (IThrowableProxy t = event.getThrowableProxy(); t != null; t = t.getCause()) {
      if ("io.grpc.StatusRuntimeException".equals(t.getClassName())
          && t.getMessage() != null
          && (t.getMessage().startsWith("UNAVAILABLE")
              || t.getMessage().equals(SERVER_CANCELLED)
              || t.getMessage().equals(CHANNEL_CLOSED)
              || t.getMessage().startsWith(SERVER_FAILED))) {
        return FilterReply.DENY;
      }
    }
    return FilterReply.NEUTRAL;
  }
}
