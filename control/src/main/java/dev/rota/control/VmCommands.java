package dev.rota.control;

import dev.rota.store.Sql;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import jakarta.inject.Singleton;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a user does to VMs: submit one or a batch, stop, start, restart, extend a lease and delete.
 * A submission is stored with the start its workflow is owed and answered: the VM is placed and run
 * meanwhile, and its workflow is started in the background ({@link VmWorkflowStarter}), by any host
 * later should this one die first. The actions are the VM's workflow's to judge ({@link
 * VmActions}); a delete is handed to the workflow, which removes the task before the rows.
 */
@Singleton
public class VmCommands {
  private static final String WAITING = "submitted; waiting for the scheduler";

  private final VmRepository vms;
  private final VmSubmissions submissions;
  private final ControlWorkflows workflows;
  private final VmActions actions;
  private final VmWorkflowStarter starter;
  private final VmDeletion deletion;

  private final SubmissionGate gate;
  private final dev.rota.scheduler.term.PlacementPreview preview;

  public VmCommands(
      VmRepository vms,
      VmSubmissions submissions,
      ControlWorkflows workflows,
      VmActions actions,
      VmWorkflowStarter starter,
      VmDeletion deletion,
      SubmissionGate gate,
      dev.rota.scheduler.term.PlacementPreview preview) {
    this.preview = preview;
    this.deletion = deletion;
    this.gate = gate;
    this.vms = vms;
    this.submissions = submissions;
    this.workflows = workflows;
    this.actions = actions;
    this.starter = starter;
  }

  /** Stores the VM as submitted; {@link Refused} if its name is taken. */
  public VmRow submit(VmRow asked) {
    gate.check("VM '" + asked.name() + "'");
    VmRow row = asked.withSpec(gate.withDefaults(asked.spec()));
    VmRow saved;
    try {
      saved = submissions.submit(row, WAITING);
    } catch (RuntimeException e) {
      if (Sql.isUniqueViolation(e)) {
        throw taken(row.name());
      }
      throw e;
    }
    workflows.wakeSchedulerMeanwhile("vm " + saved.name() + " submitted");
    starter.startSoon(List.of(saved));
    return saved;
  }

  /**
   * A dry run's answer for a VM: as it would be stored, and where it would go.
   *
   * @param placement the worker the next term would place it on now, or why it would wait
   */
  public record VmPlan(VmRow vm, dev.rota.scheduler.term.PlacementPreview.Outcome placement) {}

  /**
   * What {@link #submit} would do, checked as it checks ({@link Refused} if the name is taken);
   * nothing is written.
   */
  public VmPlan plan(VmRow asked) {
    gate.check("VM '" + asked.name() + "'");
    VmRow row = asked.withSpec(gate.withDefaults(asked.spec()));
    if (vms.findById(row.name()).isPresent()) {
      throw taken(row.name());
    }
    return new VmPlan(
        row, preview.place(List.of(row), dev.rota.core.model.Spread.NONE).get(row.name()));
  }

  /**
   * Stores every VM of a batch in one transaction, or none ({@link Refused} naming the first whose
   * name is taken, by its place in the batch); the scheduler is woken once.
   */
  public List<VmRow> submitAll(List<VmRow> asked) {
    gate.check("none of the " + asked.size() + " VMs");
    List<VmRow> rows = asked.stream().map(r -> r.withSpec(gate.withDefaults(r.spec()))).toList();
    Map<String, Integer> byName = new HashMap<>();
    for (int i = 0; i < rows.size(); i++) {
      byName.put(rows.get(i).name(), i);
    }
    vms.findByNameInList(byName.keySet()).stream()
        .findFirst()
        .ifPresent(
            taken -> {
              throw new Refused(
                  "VM '"
                      + taken.name()
                      + "' (items["
                      + byName.get(taken.name())
                      + "]) already exists; nothing was created");
            });
    List<VmRow> saved;
    try {
      saved = submissions.storeAll(rows, WAITING);
    } catch (RuntimeException e) {
      if (Sql.isUniqueViolation(e)) {
        throw new Refused("a VM of this batch was created meanwhile; nothing was created");
      }
      throw e;
    }
    workflows.wakeSchedulerMeanwhile(saved.size() + " vms submitted");
    starter.startSoon(saved);
    return saved;
  }

  public void stop(String name) {
    find(name);
    actions.act(name, vm -> vm::stop);
  }

  public void start(String name) {
    find(name);
    actions.act(name, vm -> vm::start);
    workflows.wakeScheduler("vm " + name + " started");
  }

  public void restart(String name) {
    find(name);
    actions.act(name, vm -> vm::restart);
    workflows.wakeScheduler("vm " + name + " restarted");
  }

  /** Saves the running VM's memory on its worker and ends its task; a start resumes it. */
  public void suspend(String name) {
    find(name);
    actions.act(name, vm -> vm::suspend);
  }

  /** Pauses the running VM's guest where it runs; a start runs it on. */
  public void pause(String name) {
    find(name);
    actions.act(name, vm -> vm::pause);
  }

  /** Moves the end of the VM's lease {@code seconds} later, if it has one under way. */
  public void extendLease(String name, long seconds) {
    find(name);
    actions.act(name, vm -> () -> vm.extendLease(seconds));
  }

  /** Hands the deletion to the VM's workflow ({@link VmDeletion}); the row as it was when asked. */
  public VmRow delete(String name) {
    VmRow row = find(name);
    deletion.delete(row);
    return row;
  }

  private VmRow find(String name) {
    return vms.findById(name).orElseThrow(() -> new NotFound("VM", name));
  }

  private static Refused taken(String name) {
    return new Refused("VM '" + name + "' already exists");
  }
}
