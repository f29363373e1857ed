package dev.rota.activities.term;

import dev.rota.settings.AgentCallSettings;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/** The threads that call agents in parallel, so that one slow agent holds up only itself. */
@Factory
public class AgentCalls {
  public static final String EXECUTOR = "agent-calls";

  @Singleton
  @Named(EXECUTOR)
  @Bean(preDestroy = "shutdownNow")
  ExecutorService agentCallExecutor(AgentCallSettings settings) {
    AtomicInteger n = new AtomicInteger();
    return Executors.newFixedThreadPool(
        settings.parallelism(),
        r -> {
          Thread t = new Thread(r, "agent-call-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
  }
}
