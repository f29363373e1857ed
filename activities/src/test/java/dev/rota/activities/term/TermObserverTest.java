package dev.rota.activities.term;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The observe step when more agents are due than can be asked within one call's time. */
@MicronautTest(rebuildContext = true, transactional = false)
@Property(name = "rota.agents.parallelism", value = "1")
@Property(name = "rota.agents.timeout", value = "300ms")
class TermObserverTest {
  @Inject TermObserver observer;
  @Inject FakeAgents agents;
  @Inject WorkerRepository workers;
  @Inject Clock clock;

  private void worker(String name) {
    workers.save(WorkerRow.registered(name, FakeAgents.endpoint(name), Map.of("cpu", 4L), Map.of(), List.of("process"),
        null, "not-ready", "new", clock.instant()));
  }

  @Test
  void aProbeThatNeverGotToBeSentCountsAgainstNoAgentAndIsDueAgain() {
    worker("obs-hangs");
    worker("obs-waits");
    agents.set("obs-hangs", FakeAgents.Mode.HANGS);
    var seen = observer.observe();
    WorkerRow hung = workers.findById("obs-hangs").orElseThrow();
    WorkerRow waited = workers.findById("obs-waits").orElseThrow();
    assertEquals(1, hung.probeFailures(), "asked, and no answer in time");
    assertEquals(0, waited.probeFailures(), "never asked: the one call at a time was taken all along");
    assertNull(waited.lastProbeAt(), "so still due");
    assertEquals(1, seen.probed());
  }
}
