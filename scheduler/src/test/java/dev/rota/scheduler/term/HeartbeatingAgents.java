package dev.rota.scheduler.term;

import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import dev.rota.workflows.cluster.ClusterActivities;
import dev.rota.workflows.cluster.TermOutcome;
import dev.rota.workflows.cluster.TermStart;
import java.time.Clock;

/**
 * The real cluster activities, with every agent that still heartbeats doing so just before each
 * observation: heartbeats at least once a term, in the test server's time.
 */
final class HeartbeatingAgents implements ClusterActivities {
  private final ClusterActivities real;
  private final FakeAgents agents;
  private final WorkerRepository workers;
  private final Clock clock;

  HeartbeatingAgents(
      ClusterActivities real, FakeAgents agents, WorkerRepository workers, Clock clock) {
    this.real = real;
    this.agents = agents;
    this.workers = workers;
    this.clock = clock;
  }

  private void heartbeat() {
    for (WorkerRow w : workers.findAll()) {
      if (agents.heartbeating(w.name())) {
        workers.heartbeat(w.name(), clock.instant());
      }
    }
  }

  @Override
  public TermOutcome termAndApply(TermStart start) {
    heartbeat();
    return real.termAndApply(start);
  }
}
