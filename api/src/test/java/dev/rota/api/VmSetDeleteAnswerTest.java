package dev.rota.api;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.control.ActionSettings;
import dev.rota.control.ControlWorkflows;
import dev.rota.scheduler.SchedulerWaker;
import dev.rota.scheduler.settings.SchedulerSettings;
import dev.rota.scheduler.settings.VmSettings;
import dev.rota.scheduler.temporal.TemporalDeadlines;
import dev.rota.store.VmSetRepository;
import io.micronaut.context.annotation.Property;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * DELETE /v1/vm-sets/{name} when the set's workflow is quicker than the request: a set with no
 * replicas is removed by its workflow's first pass after the signal, and the API fuzzer once saw
 * the accepted deletion answered 404 because the answer was read after that pass.
 */
@MicronautTest
@Property(name = "rota.test.quick-set-workflow", value = "true")
class VmSetDeleteAnswerTest {
  @Inject Http http;

  /**
   * The real gateway, except that telling a set's workflow returns only once the workflow has
   * removed the set.
   */
  @Singleton
  @Replaces(ControlWorkflows.class)
  @Requires(property = "rota.test.quick-set-workflow", value = "true")
  static class QuickSetWorkflow extends ControlWorkflows {
    private final VmSetRepository sets;

    QuickSetWorkflow(
        dev.rota.scheduler.temporal.WorkflowStubs client,
        VmSettings settings,
        SchedulerSettings scheduler,
        SchedulerWaker waker,
        TemporalDeadlines deadlines,
        VmSetRepository sets) {
      super(
          client, settings, scheduler, waker, deadlines, new ActionSettings(Duration.ofSeconds(2)));
      this.sets = sets;
    }

    @Override
    public void tellSet(String name, int replicas) {
      super.tellSet(name, replicas);
      eventually("the set's workflow removed " + name, () -> sets.findById(name).isEmpty());
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void anAcceptedDeletionIsAnsweredAsAcceptedWhenTheWorkflowIsDoneFirst() {
    assertEquals(201, http.post("/v1/vm-sets", VmSetApiTest.set("quick", 0, "\"none\"")).status());

    Http.Reply deleted = http.delete("/v1/vm-sets/quick");

    assertEquals(202, deleted.status(), deleted.toString());
    Map<String, Object> status = (Map<String, Object>) deleted.map().get("status");
    assertEquals("being deleted; 0 replicas left", status.get("message"));
    assertEquals(404, http.get("/v1/vm-sets/quick").status(), "and it is gone");
    assertEquals(404, http.delete("/v1/vm-sets/quick").status(), "a second deletion finds nothing");
  }
}
