package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.agent.Agent;
import dev.rota.agent.config.AgentConfig;
import dev.rota.scheduler.agents.HttpAgentClient;
import dev.rota.scheduler.agents.Probe;
import dev.rota.store.AgentAddress;
import io.micronaut.context.ApplicationContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controller's side of the agents' HTTPS, against a real agent with the certificate it
 * generated: the pinned certificate is trusted, whoever would present another is not, and an https
 * endpoint without a pin is not called at all.
 */
class AgentPinningTest {
  @TempDir Path data;

  @Test
  void onlyTheCertificatePinnedAtRegistrationIsTrusted() {
    try (Agent agent =
            Agent.start(
                AgentConfig.from(
                    Map.of(
                        "ROTA_CONTROLLER_URL", "http://127.0.0.1:9",
                        "ROTA_WORKER_NAME", "pinned",
                        "ROTA_AGENT_PORT", "0",
                        "ROTA_AGENT_SECRET", "a-secret-for-this-test-only",
                        "ROTA_AGENT_DATA_DIR", data.toString()),
                    new String[0]));
        ApplicationContext context =
            ApplicationContext.builder().packages("dev.rota.scheduler.agents").start()) {
      HttpAgentClient client =
          new HttpAgentClient(context.getBean(io.micronaut.serde.ObjectMapper.class));
      String endpoint = "https://127.0.0.1:" + agent.port();
      Duration timeout = Duration.ofSeconds(10);

      Probe impostor =
          client.probe(new AgentAddress(endpoint, agent.secret(), "1".repeat(64)), timeout);
      assertFalse(impostor.answered(), "refused at the handshake: the secret is never sent to it");
      assertTrue(impostor.error().contains("SSLHandshakeException"), impostor.error());

      Probe pinned =
          client.probe(
              new AgentAddress(endpoint, agent.secret(), agent.certificateSha256()), timeout);
      assertTrue(pinned.answered(), "the pinned certificate: " + pinned.error());

      Probe other =
          client.probe(new AgentAddress(endpoint, agent.secret(), "0".repeat(64)), timeout);
      assertFalse(
          other.answered(),
          "another pin, over a connection kept from the call before: not trusted either");
      assertTrue(other.error().contains("not the one pinned at its registration"), other.error());

      Probe none = client.probe(new AgentAddress(endpoint, agent.secret(), null), timeout);
      assertFalse(none.answered());
      assertTrue(none.error().contains("no certificate pinned for " + endpoint), none.error());

      assertEquals(
          true,
          client
              .probe(new AgentAddress(endpoint, agent.secret(), agent.certificateSha256()), timeout)
              .answered(),
          "and the right pin still works after a refused one");
    }
  }
}
