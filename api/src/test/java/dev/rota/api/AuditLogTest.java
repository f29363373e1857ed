package dev.rota.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

@MicronautTest
class AuditLogTest {
  @Inject Http http;
  private final Logger audit = (Logger) LoggerFactory.getLogger("dev.rota.audit");
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

  @BeforeEach
  void listen() {
    lines.start();
    audit.addAppender(lines);
  }

  @AfterEach
  void stop() {
    audit.detachAppender(lines);
  }

  private List<String> said() {
    return lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  @Test
  void aUsersChangeIsOneLineSayingWhoWhatAndHowItWasAnsweredAndReadsAreNot() {
    assertEquals(
        201, http.post("/v1/vms", "{\"name\":\"audited\",\"command\":[\"sleep\",\"9\"]}").status());
    assertEquals(400, http.post("/v1/vms", "{\"name\":\"bad audit\"}").status());
    http.get("/v1/vms/audited");

    assertEquals(
        List.of(
            "audit caller=anonymous action=\"POST /v1/vms\" status=201",
            "audit caller=anonymous action=\"POST /v1/vms\" status=400"),
        said());
  }

  @Test
  void anAgentsHeartbeatIsNotAUsersAction() {
    http.put("/v1/workers/nobody/heartbeat", "");
    assertTrue(said().isEmpty(), said().toString());
  }
}
