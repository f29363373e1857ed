package dev.rota.agent.runtimes;

import java.io.IOException;
import java.nio.channels.Channel;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A deadline on a talk with QEMU: the channel is closed once it passes, which ends a read, write or
 * accept stuck on it, so that a QEMU that hangs cannot hang the agent.
 */
final class ChannelDeadline {
  private ChannelDeadline() {}

  /** Closes {@code channel} after {@code deadline}; cancel the answer once done in time. */
  static ScheduledFuture<?> closeAfter(
      ScheduledExecutorService timers, Channel channel, Duration deadline) {
    return timers.schedule(
        () -> {
          try {
            channel.close();
          } catch (IOException e) {
            // closed already
          }
        },
        deadline.toMillis(),
        TimeUnit.MILLISECONDS);
  }
}
