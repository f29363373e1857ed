package dev.rota.workflows.vm;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/** One VM's life, from submission to deletion. Its id is {@link #workflowId(String)}. */
@WorkflowInterface
public interface VmWorkflow {
  /**
   * The failure type of an action the workflow refuses as the VM stands (a stop of a stopped VM).
   */
  String NOT_ALLOWED = "NotAllowed";

  /** The failure type of a run that ended with its VM failed for good: the failure is the VM's. */
  String FAILED = "VmFailed";

  /**
   * The memo naming the submission (the VM row's {@code seq}) a run was started for. A name may be
   * submitted again once its VM is deleted; a run of the deleted VM that is still closing writes
   * only to rows of its own submission, never to the new VM's.
   */
  String SUBMISSION = "submission";

  static String workflowId(String vmName) {
    return "vm-" + vmName;
  }

  /**
   * @param carried what the run before this one handed on when it continued as new; null for the
   *     first run, which starts from the store
   * @param submitted the VM as its submitter has just stored it, so that a new VM's first run needs
   *     no activity to read it back; null: read from the store
   */
  @WorkflowMethod
  void run(String vmName, VmCarry carried, VmRecord submitted);

  /** Stops the VM; rejected (and nothing recorded) when its status does not allow it. */
  @UpdateMethod
  String stop();

  @UpdateValidatorMethod(updateName = "stop")
  void validateStop();

  /**
   * Makes a stopped or failed VM pending again, or a suspended one pending to resume; rejected
   * otherwise.
   */
  @UpdateMethod
  String start();

  @UpdateValidatorMethod(updateName = "start")
  void validateStart();

  /**
   * Ends the current task and starts the VM anew; rejected unless it is scheduled, running or
   * failed.
   */
  @UpdateMethod
  String restart();

  @UpdateValidatorMethod(updateName = "restart")
  void validateRestart();

  /**
   * Saves the running VM's memory on its worker and ends its task, freeing what it held there; a
   * start resumes it where it was. Rejected unless it runs and can be suspended ({@link
   * dev.rota.core.lifecycle.SuspendRule}); the answer is {@code suspended}, or {@code running} when
   * its agent could not save it (its events say why).
   */
  @UpdateMethod
  String suspend();

  @UpdateValidatorMethod(updateName = "suspend")
  void validateSuspend();

  /**
   * Pauses the running VM's guest where it runs (a suspend in place): its CPUs stop, its QEMU,
   * memory and room on its worker are kept; a start runs it on. Rejected unless it runs and is a
   * {@code qemu} VM of no set; the answer is {@code paused}, or {@code running} when its agent
   * could not pause it (its events say why).
   */
  @UpdateMethod
  String pause();

  @UpdateValidatorMethod(updateName = "pause")
  void validatePause();

  /**
   * Moves the end of the VM's lease {@code seconds} later; the answer is when it now runs out (an
   * RFC 3339 instant). Rejected unless its lease is under way: it has {@code maxRunDuration}, has
   * run, and is not stopped or failed.
   */
  @UpdateMethod
  String extendLease(long seconds);

  @UpdateValidatorMethod(updateName = "extendLease")
  void validateExtendLease(long seconds);

  /**
   * The scheduler placed the VM's task, or saw it start, end, vanish or be lost with its worker.
   */
  @SignalMethod
  void taskEvent(TaskEvent event);

  /**
   * Several of the task's events at once, oldest first (placed and started together): one signal
   * and one workflow task where one each would cost as many.
   */
  @SignalMethod
  void taskEvents(List<TaskEvent> events);

  /** Removes the VM: its task first, then its rows; the workflow ends. */
  @SignalMethod
  void delete();

  /** The status as this workflow has decided it. */
  @QueryMethod
  String status();
}
