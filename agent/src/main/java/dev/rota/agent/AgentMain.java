package dev.rota.agent;

import java.util.concurrent.CountDownLatch;
import sun.misc.Signal;

/**
 * {@code java -jar rota-agent.jar}: configured by {@code ROTA_*} variables or flags (see README).
 */
public final class AgentMain {
  private AgentMain() {}

  public static void main(String[] args) {
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
