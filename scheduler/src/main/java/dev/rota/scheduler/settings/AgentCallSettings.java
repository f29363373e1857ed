package dev.rota.scheduler.settings;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;
import java.time.Duration;

/**
 * {@code rota.agents.*}: how the controller calls agents.
 *
 * @param timeout the deadline of one call to one agent; a slower agent counts as unreachable this
 *     term
 * @param parallelism how many agents are called at once
 */
@ConfigurationProperties("rota.agents")
public record AgentCallSettings(
    @Bindable(defaultValue = "3s") Duration timeout,
    @Bindable(defaultValue = "32") int parallelism) {
  /**
   * What a call removing a task may take: its agent answers once the task has ended, and a VM is
   * given its power button and the agent's stop grace (10 s by default) first. Within the VM
   * workflow's 30 s for the activity.
   */
  static final Duration REMOVAL = Duration.ofSeconds(25);

  /**
   * The deadline of a call that removes a task: the longer of {@link #timeout} and {@link
   * #REMOVAL}.
   */
  public Duration removalTimeout() {
    return timeout.compareTo(REMOVAL) > 0 ? timeout : REMOVAL;
  }

  /**
   * The deadline of a call that hands a running guest its user data: as long as a removal's, for
   * the guest's own shell writes it, and under software emulation a shell's few commands take
   * seconds. The agent answers 409 within it while the guest is busy.
   */
  public Duration deliveryTimeout() {
    return removalTimeout();
  }

  /**
   * What a call suspending a task may take: its agent answers once the guest's memory is saved (the
   * agent gives that 10 minutes) and the task has ended. Within the VM workflow's 12 minutes for
   * the activity.
   */
  public Duration suspendTimeout() {
    return Duration.ofMinutes(11);
  }
}
