package dev.rota.host;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Looks at the VMs' processes ({@link Vms#sleeping}) every 200 ms on a thread of its own, until
 * closed: how the fault tests catch a VM with two live copies at any moment.
 */
final class ProcessSampler implements AutoCloseable {
  private final AtomicBoolean sampling = new AtomicBoolean(true);
  private final Thread thread;

  /** Starts sampling; {@code look} gets each sample, by {@code sleep} argument. */
  ProcessSampler(Consumer<Map<String, List<Long>>> look) {
    this(() -> look.accept(Vms.sleeping()));
  }

  /** Starts looking, whatever {@code look} looks at (guests, the API's counts). */
  ProcessSampler(Runnable look) {
    thread =
        new Thread(
            () -> {
              while (sampling.get()) {
                look.run();
                try {
                  Thread.sleep(200);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "process-sampler");
    thread.start();
  }

  /** Stops, after the sample under way. */
  @Override
  public void close() throws InterruptedException {
    sampling.set(false);
    thread.join();
  }
}
