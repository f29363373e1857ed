package dev.rota.host.temporal;

import io.temporal.internal.testservice.TestServicesStarter;
import java.util.LinkedList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops the embedded test server's timer from keeping a record of every lock and unlock of time
 * skipping. Its {@code SelfAdvancingTimerImpl} appends an event to a {@code LinkedList} ("debugging
 * purposes only") for each workflow task, activity and timer, removes only some of them, and finds
 * the one a lock handle releases by walking the list from its oldest entry: memory that grows as
 * long as the host runs, and a walk that grows with it (a large share of the CPU under a long
 * load). Rota's server never skips time, so the record serves nothing: the list is replaced by one
 * that keeps nothing. Should a new SDK change the class, the server runs as it ships and this says
 * so once.
 */
final class UnkeptTimerLocks extends LinkedList<Object> {
  private static final Logger log = LoggerFactory.getLogger(UnkeptTimerLocks.class);

  private UnkeptTimerLocks() {}

  /** Whether the record of {@code services}' timer is now kept by nothing. */
  static boolean forget(TestServicesStarter services) {
    try {
      Object timer =
          TestServerFields.open(TestServicesStarter.class, "selfAdvancingTimer", Object.class)
              .get(services);
      TestServerFields.open(timer.getClass(), "lockEvents", LinkedList.class)
          .set(timer, new UnkeptTimerLocks());
      return true;
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.warn("the embedded Temporal server keeps its timer's lock record: {}", e.toString());
      return false;
    }
  }

  @Override
  public boolean add(Object event) {
    return true;
  }

  /** A lock handle's release looks its event up, and fails if it is missing: it is, by design. */
  @Override
  public boolean remove(Object event) {
    return true;
  }
}
