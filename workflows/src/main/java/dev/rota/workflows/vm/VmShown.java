package dev.rota.workflows.vm;

import dev.rota.core.lifecycle.HeardReadiness;
import dev.rota.core.lifecycle.VmLife;
import dev.rota.workflows.RotaSearchAttributes;
import io.temporal.common.SearchAttributeUpdate;
import io.temporal.workflow.Workflow;
import java.time.Instant;

/**
 * What the Temporal UI shows of a VM's workflow: its search attributes (status, worker, restarts,
 * how its last task ended) and its current details. What a workflow task heard is shown in one
 * upsert at its end: a submitted VM's first task heard its placing and its start, and an upsert
 * each was a visibility write each for the server. The details are no command, and are current at
 * once. What the VM's readiness check was heard to say is kept here: only the summary shows it.
 */
final class VmShown {
  /** A keyword is matched whole: the start of a reason is what a query can name. */
  private static final int LAST_EXIT_LENGTH = 80;

  /** Whether the search attributes lag what was heard. */
  private boolean pending;

  /** How this run's last task ended ({@link #ended}); null until one has. */
  private String lastEnd;

  /** What it heard its readiness check say, shown while it runs. */
  private HeardReadiness readiness = HeardReadiness.none(false);

  HeardReadiness readiness() {
    return readiness;
  }

  /** What the store or the run before knew of its readiness, before anything is shown. */
  void readinessWas(HeardReadiness known) {
    readiness = known;
  }

  /**
   * Readiness news: the details alone change, since no search attribute shows it, and they are no
   * command, so nothing enters the history.
   */
  void heard(VmLife life, HeardReadiness next) {
    if (!next.equals(readiness)) {
      readiness = next;
      refresh(life);
    }
  }

  /** Heard something: the details now, the search attributes with the task's last event. */
  void later(VmLife life) {
    pending = true;
    refresh(life);
  }

  private void refresh(VmLife life) {
    Workflow.setCurrentDetails(details(life));
  }

  /** Shows what the task heard, if anything. */
  void now(VmLife life) {
    if (pending) {
      show(life);
    }
  }

  void show(VmLife life) {
    pending = false;
    SearchAttributeUpdate<?> status =
        RotaSearchAttributes.VM_STATUS.valueSet(life.status().wireName());
    SearchAttributeUpdate<?> worker =
        life.worker() == null
            ? RotaSearchAttributes.WORKER.valueUnset()
            : RotaSearchAttributes.WORKER.valueSet(life.worker());
    SearchAttributeUpdate<Long> restarts =
        RotaSearchAttributes.RESTARTS.valueSet((long) life.restartCount());
    // Never unset: a run continued as new, or begun anew, keeps the last end it was started with
    // until a task of its own ends.
    if (lastEnd == null) {
      Workflow.upsertTypedSearchAttributes(status, worker, restarts);
    } else {
      Workflow.upsertTypedSearchAttributes(
          status, worker, restarts, RotaSearchAttributes.LAST_EXIT.valueSet(lastEnd));
    }
    refresh(life);
  }

  /**
   * Whether the search attributes it was started with show the VM as it was handed over, worker
   * included: a start made once the VM runs, by a host that sets the worker at the start. Its first
   * task then upserts nothing, which spares the server a visibility write per VM.
   */
  boolean startShows(VmLife life) {
    return lastEnd == null
        && RotaSearchAttributes.shows(
            Workflow.getTypedSearchAttributes(),
            life.status().wireName(),
            life.worker(),
            life.restartCount());
  }

  /** Handed over at its submission: the start's search attributes show it already. */
  void shownByItsStart() {
    pending = false;
  }

  /** Its task just ended: how, for {@link RotaSearchAttributes#LAST_EXIT}. */
  void ended(VmLife life) {
    String why = life.message() == null ? life.status().wireName() : life.message();
    lastEnd =
        life.exitCode() != null
            ? "exit " + life.exitCode()
            : why.length() <= LAST_EXIT_LENGTH ? why : why.substring(0, LAST_EXIT_LENGTH - 1) + "…";
  }

  /**
   * The VM is gone: otherwise it stays in {@code RotaVmStatus = 'running'} and {@code RotaWorker =
   * 'w'} lists.
   */
  static void deleted(String why) {
    Workflow.upsertTypedSearchAttributes(
        RotaSearchAttributes.VM_STATUS.valueSet(VmWorkflowImpl.DELETED),
        RotaSearchAttributes.WORKER.valueUnset());
    Workflow.setCurrentDetails(
        "**" + VmWorkflowImpl.DELETED + "**" + (why == null ? "" : ": " + why));
  }

  /**
   * Status, worker and generation; a move, a restart due, and the readiness of a VM that runs with
   * a check.
   */
  String details(VmLife life) {
    String details =
        "**"
            + life.status().wireName()
            + "**"
            + (life.worker() == null ? "" : " on " + life.worker())
            + ", restart "
            + life.restartCount()
            + (life.movingFrom() == null
                ? ""
                : "; moving" + (life.movingTo() == null ? "" : " to " + life.movingTo()));
    if (life.restartAtMillis() > 0) {
      details += "; next restart at " + Instant.ofEpochMilli(life.restartAtMillis());
    }
    String ready = readiness.shown(life.status(), life.restartCount());
    return ready == null ? details : details + "; " + ready;
  }
}
