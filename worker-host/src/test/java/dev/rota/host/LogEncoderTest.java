package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LogEncoderTest {
  private static String line(Map<String, String> env) {
    LoggerContext context = (LoggerContext) org.slf4j.LoggerFactory.getILoggerFactory();
    LogEncoder encoder = new LogEncoder();
    encoder.setContext(context);
    encoder.setEnv(env::get);
    encoder.setPattern("level=%level msg=\"%msg\"%n");
    encoder.start();
    LoggingEvent event =
        new LoggingEvent(
            "x", context.getLogger("dev.rota.audit"), Level.INFO, "audit caller=alice", null, null);
    return new String(encoder.encode(event), StandardCharsets.UTF_8);
  }

  @Test
  void textByDefaultAndAJsonObjectALineWhenAsked() throws Exception {
    assertEquals("level=INFO msg=\"audit caller=alice\"\n", line(Map.of()));
    assertEquals(line(Map.of()), line(Map.of("ROTA_LOG_FORMAT", "text")));
    String json = line(Map.of("ROTA_LOG_FORMAT", "json"));
    assertTrue(json.endsWith("\n") && json.lines().count() == 1, json);
    JsonNode object = new ObjectMapper().readTree(json);
    assertEquals("audit caller=alice", object.path("message").asText());
    assertEquals("INFO", object.path("level").asText());
    assertEquals("dev.rota.audit", object.path("loggerName").asText());
  }

  @Test
  void anotherFormatIsOneLineThatStopsTheHost() {
    assertEquals(
        Optional.of("ROTA_LOG_FORMAT=xml must be text or json"),
        LogEncoder.problem(Map.of("ROTA_LOG_FORMAT", "xml")::get));
    assertEquals(Optional.empty(), LogEncoder.problem(Map.<String, String>of()::get));
  }
}
