package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A setting Rota cannot run with stops the start with one line naming it, before anything listens.
 */
class BadSettingsTest {
  @TempDir Path dataDir;

  /** A production host's settings on an in-memory database of its own. */
  private static Map<String, Object> production(String database) {
    Map<String, Object> props = new java.util.HashMap<>();
    props.put(
        "datasources.default.url",
        "jdbc:h2:mem:" + database + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DB_CLOSE_DELAY=-1");
    props.put("datasources.default.driver-class-name", "org.h2.Driver");
    props.put("micronaut.server.port", FreePorts.next());
    return props;
  }

  @org.junit.jupiter.api.Test
  void aProductionHostWithAuthOffRefusesToStartUnlessTold() {
    Map<String, Object> props = production("prod-auth");
    props.put("rota.auth.enabled", "false");
    StartupException e =
        assertThrows(StartupException.class, () -> RotaHost.start(HostMode.PRODUCTION, props));
    assertTrue(e.getMessage().contains("ROTA_AUTH_ALLOW_INSECURE"), e.getMessage());
  }

  @org.junit.jupiter.api.Test
  void aDatabaseTimeoutIsADurationAsEveryOtherSetting() {
    Map<String, Object> props = production("prod-timeout");
    props.put(DatabaseTimeout.PROPERTY, "5000");
    StartupException e =
        assertThrows(StartupException.class, () -> RotaHost.start(HostMode.PRODUCTION, props));
    assertEquals(
        "ROTA_DATABASE_CONNECTION_TIMEOUT=5000 must be a duration such as 90s, 10m, 1h30m or 7d"
            + " (the default is 5s)",
        e.getMessage());

    Map<String, Object> given = new java.util.HashMap<>(Map.of(DatabaseTimeout.PROPERTY, "1m30s"));
    DatabaseTimeout.configure(given);
    assertEquals(90_000L, given.get(DatabaseTimeout.POOL_PROPERTY), "the pool's milliseconds");
  }

  @org.junit.jupiter.api.Test
  void aProductionApiInPlainHttpWhereOthersCanReachItRefusesToStartUnlessTold() {
    Map<String, Object> props = production("prod-http");
    props.put("micronaut.server.host", "0.0.0.0");
    props.put("rota.auth.bootstrap-admin-token", "a-bootstrap-admin-token-for-this-test");
    StartupException e =
        assertThrows(StartupException.class, () -> RotaHost.start(HostMode.PRODUCTION, props));
    assertTrue(
        e.getMessage().startsWith("refusing to serve the API in plain HTTP on 0.0.0.0:")
            && e.getMessage().contains("ROTA_API_TLS_KEYSTORE")
            && e.getMessage().contains("ROTA_API_INSECURE_HTTP=true"),
        e.getMessage());

    props.put("rota.api.tls-keystore", dataDir.resolve("missing.p12").toString());
    StartupException missing =
        assertThrows(StartupException.class, () -> RotaHost.start(HostMode.PRODUCTION, props));
    assertTrue(missing.getMessage().contains("is not a readable file"), missing.getMessage());
  }

  @ParameterizedTest
  @CsvSource({
    "rota.scheduler.interval, abc",
    "rota.scheduler.interval, -5s",
    "rota.scheduler.interval, 0s",
    "rota.temporal.port, seven",
    "rota.temporal.dev-server, sometimes",
    "rota.temporal.ui-port, 70000",
    "rota.temporal.sticky-timeout, 0s",
    "rota.temporal.workflow-cache-size, 0",
    "rota.temporal.workflow-task-slots, -1",
    "rota.temporal.workflow-task-slots, 1",
    "rota.vms.workflow-start-delay, -1s",
    "rota.vms.workflow-start-delay, 1h",
    "rota.scheduler.rebalance-moves-per-term, -1",
    "rota.scheduler.rebalance-moves-per-term, many",
    "rota.scheduler.woken-term-gap, -1s",
    "rota.scheduler.woken-term-gap, 1m",
    "rota.workers.remove-offline-after, -1h",
    "rota.workers.remove-offline-after, a day",
    "rota.workers.disruption-threshold, 101",
    "rota.workers.disruption-threshold, half",
    "rota.workers.max-heartbeats-per-second, 0",
  })
  void namesTheSettingAndItsValue(String property, String value) {
    int http = FreePorts.next();
    Map<String, Object> props = DevStackTest.devProperties(http, FreePorts.next(), dataDir);
    props.put(property, value);
    StartupException e =
        assertThrows(StartupException.class, () -> RotaHost.start(HostMode.DEV, props));
    assertTrue(e.getMessage().contains(property), e.getMessage());
    assertTrue(e.getMessage().contains(value), e.getMessage());
    assertFalse(e.getMessage().contains("\n"), "one line");
  }

  @Test
  void aRequiredTemporalCliThatIsNotThereIsSaidInOneLine() {
    Map<String, Object> props =
        DevStackTest.devProperties(FreePorts.next(), FreePorts.next(), dataDir);
    props.put("rota.temporal.dev-server", "cli");
    props.put("rota.temporal.cli", dataDir.resolve("no-such-temporal").toString());
    StartupException e =
        assertThrows(StartupException.class, () -> RotaHost.start(HostMode.DEV, props));
    assertTrue(e.getMessage().contains("ROTA_TEMPORAL_CLI="), e.getMessage());
    assertFalse(e.getMessage().contains("\n"), "one line");
  }
}
