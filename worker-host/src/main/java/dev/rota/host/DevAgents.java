package dev.rota.host;

import dev.rota.agent.Agent;
import dev.rota.agent.AgentConfig;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Dev mode's local workers: {@code ROTA_DEV_AGENTS} real agents (default 2) in this process, named
 * {@code dev-1}, {@code dev-2}, …, on free loopback ports, running real processes, with their data in
 * the data folder, so that a restarted dev mode finds its tasks again.
 */
final class DevAgents implements AutoCloseable {
  private final List<Agent> agents;

  private DevAgents(List<Agent> agents) {
    this.agents = agents;
  }

  /**
   * @param runtimes the runtimes they offer, e.g. {@code synthetic} alone for a host whose VMs must run nothing real
   * @param syntheticStartDelay how long their {@code synthetic} tasks take to start, or null for the agent's default
   * @param tokenFor a worker-scoped token for the named worker when auth is on, else null
   */
  static DevAgents start(
      int count, URI api, Path dataDir, String heartbeatInterval, String resources, String runtimes,
      String syntheticStartDelay,
      java.util.function.Function<String, String> tokenFor) {
    List<Agent> started = new ArrayList<>();
    try {
      for (int i = 1; i <= count; i++) {
        Map<String, String> env = new HashMap<>();
        env.put("ROTA_CONTROLLER_URL", "http://127.0.0.1:" + api.getPort());
        env.put("ROTA_WORKER_NAME", "dev-" + i);
        env.put("ROTA_AGENT_PORT", "0");
        env.put("ROTA_AGENT_DATA_DIR", dataDir.resolve("agents").resolve("dev-" + i).toString());
        env.put("ROTA_AGENT_HEARTBEAT_INTERVAL", heartbeatInterval);
        env.put("ROTA_WORKER_RUNTIMES", runtimes);
        if (resources != null && !resources.isBlank()) {
          env.put("ROTA_WORKER_RESOURCES", resources);
        }
        if (syntheticStartDelay != null) {
          env.put("ROTA_AGENT_SYNTHETIC_START_DELAY", syntheticStartDelay);
        }
        String token = tokenFor.apply("dev-" + i);
        if (token != null) {
          env.put("ROTA_AGENT_TOKEN", token);
        }
        started.add(Agent.start(AgentConfig.from(env, new String[0])));
      }
      return new DevAgents(started);
    } catch (RuntimeException e) {
      started.forEach(Agent::close);
      throw new StartupException("a dev agent cannot start: " + e.getMessage(), e);
    }
  }

  List<Agent> agents() {
    return agents;
  }

  @Override
  public void close() {
    agents.forEach(Agent::close);
  }
}
