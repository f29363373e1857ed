package dev.rota.agent;

import dev.rota.agent.config.AgentConfig;
import java.util.concurrent.CountDownLatch;
import sun.misc.Signal;

/**
 * {@code java -jar rota-agent.jar} ({@code rota agent}): configured by {@code ROTA_*} variables or
 * flags (docs/agent.md).
 */
public final class AgentMain {
  private AgentMain() {}

  static final String USAGE =
      """
      usage: rota agent [--name=value ...]     (java -jar rota-agent.jar)
        Runs this worker machine's VMs for a Rota controller. Every setting is a ROTA_* variable,
        or a flag: --controller-url=URL is ROTA_CONTROLLER_URL, --worker-name=NAME is
        ROTA_WORKER_NAME, --port=9101 is ROTA_AGENT_PORT (the rest alike).
        Required: ROTA_CONTROLLER_URL (one or more hosts' URLs, comma-separated)
        Often set: ROTA_WORKER_NAME (default: the host name), ROTA_AGENT_TOKEN, ROTA_AGENT_DATA_DIR,
                   ROTA_WORKER_RESOURCES (cpu=8,memory=16384), ROTA_WORKER_LABELS (zone=a),
                   ROTA_WORKER_RUNTIMES (process,qemu), ROTA_AGENT_LISTEN, ROTA_AGENT_PORT
        Every setting, with its default: docs/agent.md
      """;

  public static void main(String[] args) {
    if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
      System.out.print(USAGE);
      return;
    }
    Agent agent;
    try {
      agent = Agent.start(AgentConfig.from(System.getenv(), args));
    } catch (AgentConfig.BadSetting | IllegalStateException e) {
      System.err.println("rota-agent: cannot start: " + e.getMessage());
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    for (String signal : new String[] {"TERM", "INT"}) {
      Signal.handle(
          new Signal(signal),
          s -> {
            agent.close();
            stopped.countDown();
          });
    }
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    System.exit(0);
  }
}
