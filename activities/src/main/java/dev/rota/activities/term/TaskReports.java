package dev.rota.activities.term;

import dev.rota.activities.SchedulerWaker;
import dev.rota.scheduling.ObservedTask;
import dev.rota.scheduling.PlacedVm;
import dev.rota.scheduling.Reconciler;
import dev.rota.scheduling.Reconciliation;
import dev.rota.scheduling.TaskId;
import dev.rota.store.TermActionRepository;
import dev.rota.store.TermActionRow;
import dev.rota.store.VmRepository;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Task states an agent reports as they change, between the scheduler's probes (as Nomad's clients
 * push allocation updates): a VM is {@code running} as soon as its agent says so, not a term later.
 * The same rule as the term's reconciliation decides ({@link Reconciler#reported}); a report that
 * is not about the VM's current task on that worker changes nothing. The VM's workflow is told at
 * once, and through the scheduler's outbox should this process die before it could.
 */
@Singleton
public class TaskReports {
  private static final Logger log = LoggerFactory.getLogger(TaskReports.class);

  private final VmRepository vms;
  private final TaskUpdateWriter updates;
  private final TermActionRepository actions;
  private final VmNotifier notifier;
  private final SchedulerWaker scheduler;
  private final TransactionOperations<Connection> tx;
  private final Clock clock;

  public TaskReports(
      VmRepository vms, TaskUpdateWriter updates, TermActionRepository actions, VmNotifier notifier,
      SchedulerWaker scheduler, TransactionOperations<Connection> tx, Clock clock) {
    this.scheduler = scheduler;
    this.vms = vms;
    this.updates = updates;
    this.actions = actions;
    this.notifier = notifier;
    this.tx = tx;
    this.clock = clock;
  }

  /** A VM whose record changed, and the outbox notification that stands in until it is told. */
  private record Changed(String vm, long notification) {}

  /** Applies {@code worker}'s reports; returns how many VMs changed. */
  public int accept(String worker, List<ObservedTask> tasks) {
    Instant now = clock.instant();
    List<Changed> changed = tx.executeWrite(status -> {
      List<Changed> done = new ArrayList<>();
      for (ObservedTask task : tasks) {
        Optional<TaskId> id = TaskId.parse(task.id());
        if (id.isEmpty()) {
          continue;
        }
        PlacedVm vm = vms.findById(id.get().vm()).map(Snapshots::placed).orElse(null);
        Optional<Reconciliation.TaskUpdate> update = Reconciler.reported(vm, worker, task);
        if (update.isPresent() && updates.write(update.get(), now).isPresent()) {
          long notification = actions.nextId();
          actions.addWithId(notification, TermActionRow.NOTIFY, worker, task.id(), vm.name(), now);
          done.add(new Changed(vm.name(), notification));
        }
      }
      return done;
    });
    boolean leftForTheScheduler = false;
    for (Changed c : changed) {
      try {
        notifier.notify(c.vm());
        actions.done(c.notification());
      } catch (RuntimeException e) {
        log.debug("VM {} will hear of its task from the scheduler's outbox: {}", c.vm(), e.toString());
        leftForTheScheduler = true;
      }
    }
    if (leftForTheScheduler) {
      scheduler.wake("task reports from " + worker + " left notifications in the outbox");
    }
    return changed.size();
  }
}
