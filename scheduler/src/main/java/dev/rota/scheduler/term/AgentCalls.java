package dev.rota.scheduler.term;

import dev.rota.scheduler.DaemonThreads;
import dev.rota.scheduler.settings.AgentCallSettings;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** The host's pools for the scheduler's work with agents. */
@Factory
public class AgentCalls {
  /** The threads that call agents in parallel, so that one slow agent holds up only itself. */
  public static final String EXECUTOR = "agent-calls";

  /**
   * The threads that tell VMs' workflows what agents reported ({@link TaskReports}), so that a
   * report is answered once it is stored: an agent's threads, and the API's, no longer wait for a
   * signal a task.
   */
  public static final String REPORTED_NEWS = "reported-news";

  /**
   * Reports told at once; each tells its VMs one after another, as a report's request did before.
   */
  public static final int REPORTED_NEWS_THREADS = 8;

  /**
   * Reports waiting to be told; past them, a report's request tells its own, and its agent waits.
   */
  static final int REPORTED_NEWS_WAITING = 256;

  @Singleton
  @Named(EXECUTOR)
  @Bean(preDestroy = "shutdownNow")
  ExecutorService agentCallExecutor(AgentCallSettings settings) {
    return Executors.newFixedThreadPool(
        settings.parallelism(), DaemonThreads.numbered("agent-call"));
  }

  @Singleton
  @Named(REPORTED_NEWS)
  @Bean(preDestroy = "shutdownNow")
  ExecutorService reportedNewsExecutor() {
    return new ThreadPoolExecutor(
        REPORTED_NEWS_THREADS,
        REPORTED_NEWS_THREADS,
        0,
        TimeUnit.SECONDS,
        new ArrayBlockingQueue<>(REPORTED_NEWS_WAITING),
        DaemonThreads.numbered(REPORTED_NEWS),
        new ThreadPoolExecutor.CallerRunsPolicy());
  }
}
