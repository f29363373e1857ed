package dev.rota.host;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;

/** Log events as a logger of the host would make them, for the log filters' tests. */
final class LogEvents {
  private LogEvents() {}

  static ILoggingEvent of(String logger, Level level, String message, Throwable thrown) {
    LoggerContext context = (LoggerContext) org.slf4j.LoggerFactory.getILoggerFactory();
    return new LoggingEvent("x", context.getLogger(logger), level, message, thrown, null);
  }
}
