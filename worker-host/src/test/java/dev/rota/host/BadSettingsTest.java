package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/** A setting Rota cannot run with stops the start with one line naming it, before anything listens. */
class BadSettingsTest {
  @TempDir Path dataDir;

  @ParameterizedTest
  @CsvSource({
    "rota.scheduler.interval, abc",
    "rota.scheduler.interval, -5s",
    "rota.scheduler.interval, 0s",
    "rota.temporal.port, seven",
  })
  void namesTheSettingAndItsValue(String property, String value) {
    int http = FreePorts.next();
    Map<String, Object> props = DevStackTest.devProperties(http, FreePorts.next(), dataDir);
    props.put(property, value);
    StartupException e = assertThrows(StartupException.class, () -> RotaHost.start(HostMode.DEV, props));
    assertTrue(e.getMessage().contains(property), e.getMessage());
    assertTrue(e.getMessage().contains(value), e.getMessage());
    assertFalse(e.getMessage().contains("\n"), "one line");
  }
}
