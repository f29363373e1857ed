package dev.rota.api.throttle;

import io.micronaut.context.annotation.Requires;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import jakarta.inject.Singleton;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A request that takes as long as the test says (a slow query, a busy database), for
 * InFlightLimitTest.
 */
@Requires(property = "rota.test.slow-endpoint", value = "true")
@Controller("/test/slow")
class SlowController {
  private final Gate gate;

  SlowController(Gate gate) {
    this.gate = gate;
  }

  @Singleton
  @Requires(property = "rota.test.slow-endpoint", value = "true")
  static final class Gate {
    final CountDownLatch arrived = new CountDownLatch(2);
    final CountDownLatch open = new CountDownLatch(1);
  }

  @Get
  @ExecuteOn(TaskExecutors.BLOCKING)
  String slow() throws InterruptedException {
    gate.arrived.countDown();
    return gate.open.await(60, TimeUnit.SECONDS) ? "done" : "never opened";
  }
}
