package dev.rota.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.scheduler.term.TaskObservations;
import dev.rota.scheduler.term.VmNotifier;
import dev.rota.store.OutboxRepository;
import dev.rota.store.OutboxRow;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.time.Instant;
import java.util.List;

/**
 * Places a VM on a worker by hand, as a term would, without waiting for the scheduler: its task
 * recorded, its workflow told, and the call that would start it on its agent taken as done.
 */
@Singleton
class HandPlacement {
  private final VmRepository vms;
  private final TaskObservations observations;
  private final VmNotifier notifier;
  private final OutboxRepository actions;
  private final TransactionOperations<Connection> tx;

  HandPlacement(
      VmRepository vms,
      TaskObservations observations,
      VmNotifier notifier,
      OutboxRepository actions,
      TransactionOperations<Connection> tx) {
    this.vms = vms;
    this.observations = observations;
    this.notifier = notifier;
    this.actions = actions;
    this.tx = tx;
  }

  void place(String vm, String worker) {
    VmRow row = vms.findById(vm).orElseThrow();
    assertEquals(
        1,
        tx.executeWrite(
                s ->
                    observations.placeAll(
                        List.of(new TaskObservations.Placing(vm, row.seq(), 0, worker, null)),
                        Instant.now()))
            .size());
    actions.after(0, 100_000).stream()
        .filter(a -> vm.equals(a.vm()))
        .forEach(
            a -> {
              if (a.kind().equals(OutboxRow.NOTIFY)) {
                notifier.notify(a);
              }
              actions.done(a.id());
            });
  }
}
