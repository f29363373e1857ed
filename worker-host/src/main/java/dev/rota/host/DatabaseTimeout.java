package dev.rota.host;

import dev.rota.api.Durations;
import java.util.Map;

/**
 * How long a request waits for a database connection, {@code ROTA_DATABASE_CONNECTION_TIMEOUT}, a
 * duration as every other setting ({@code 5s}): with the database out of reach the API answers 503
 * after this, not a client's whole timeout later. The pool takes milliseconds, so the host gives it
 * them before the context starts.
 */
final class DatabaseTimeout {
  static final String PROPERTY = "rota.database.connection-timeout";
  static final String VARIABLE = "ROTA_DATABASE_CONNECTION_TIMEOUT";
  static final String POOL_PROPERTY = "datasources.default.connection-timeout";
  static final String DEFAULT = "5s";

  private DatabaseTimeout() {}

  /** Puts the pool's timeout into {@code props}; a value that is not a duration stops the start. */
  static void configure(Map<String, Object> props) {
    String given = EarlySettings.get(props, PROPERTY, VARIABLE).orElse(DEFAULT);
    java.time.Duration timeout =
        Durations.parse(given)
            .orElseThrow(
                () ->
                    new StartupException(
                        VARIABLE + "=" + given + " " + Durations.MESSAGE + " (the default is 5s)"));
    props.put(POOL_PROPERTY, timeout.toMillis());
  }
}
