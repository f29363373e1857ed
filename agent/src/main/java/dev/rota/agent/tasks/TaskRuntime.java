package dev.rota.agent.tasks;

import dev.rota.agentapi.TaskView;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;

/** A way to run tasks; the task reports its own state changes. */
public interface TaskRuntime {
  /** Starts the task; a task that cannot start is marked failed with the reason, not thrown. */
  void start(Task task);

  /**
   * Ends the task, gently first: it gets {@code grace} before it is killed. Blocks until it ended.
   */
  void stop(Task task, Duration grace);

  /**
   * The task whose record this is, found again after the agent restarted: adopted if it still runs,
   * ended if not; null when it never started (or the runtime keeps nothing across restarts).
   */
  /** A connection to the running task's serial console. */
  default Conduit console(Task task) throws Refusal, IOException {
    throw new Refusal(409, "task " + task.id + " has no console: its output is its log");
  }

  /** {@code command} started in the running task's environment. */
  default Execution exec(Task task, java.util.List<String> command) throws Refusal, IOException {
    throw new Refusal(409, "task " + task.id + " cannot run commands");
  }

  /**
   * Whether the running task's QEMU guest agent answers within {@code wait}; a runtime without one
   * has none that could.
   */
  default boolean guestAgentAnswers(Task task, Duration wait) throws InterruptedException {
    return false;
  }

  /**
   * Whether a connection made to the task's forwarded port {@code guestPort} may still be waiting
   * for the guest to answer it: a runtime whose ports the task serves itself has none such.
   */
  default boolean stillConnecting(Task task, int guestPort) {
    return false;
  }

  /**
   * Writes {@code userData} into the running task's guest (given to a VM claimed from a pool, after
   * it booted), and runs it there when it is a script; asked again with the same data, it neither
   * writes nor runs it again. Refused with 409 while the guest cannot be reached yet, 422 when it
   * cannot take user data at all.
   */
  default void deliver(Task task, byte[] userData) throws Refusal, IOException {
    throw new Refusal(
        422, "task " + task.id + " takes no user data once started: only qemu VMs' guests do");
  }

  /**
   * Saves the running task's memory on this worker and ends it, so that a later task of its VM
   * resumes where it was; returns once the memory is saved and the task has ended. Asked of a task
   * in any state: one suspended already answers as it did.
   *
   * @return the saved memory's size in bytes
   */
  default long suspend(Task task) throws Refusal, IOException {
    throw new Refusal(409, "task " + task.id + " cannot be suspended: only qemu VMs can");
  }

  /**
   * Pauses the running task where it runs ({@code pause} true: its guest's CPUs stop, its memory
   * and process kept) or runs it on ({@code false}); asked again, it is as asked already.
   */
  default void pause(Task task, boolean pause) throws Refusal, IOException {
    throw new Refusal(409, "task " + task.id + " cannot be paused: only qemu VMs can");
  }

  /**
   * Sends the running task's VM, while it runs, to the task of its VM's that waits for it on
   * another worker ({@link dev.rota.agentapi.TaskSpec#incoming}); returns once that task has it,
   * this one ended. A move that fails leaves it running here.
   */
  default dev.rota.agentapi.LiveMove move(Task task, dev.rota.agentapi.LiveMove.Request to)
      throws Refusal, IOException {
    throw new Refusal(409, "task " + task.id + " cannot move while it runs: only qemu VMs can");
  }

  /**
   * What {@link #move} of {@code task} left in its folder: {@code moving} while under way (or until
   * an agent restart settles it), {@code moved} once sent; null when no move is known.
   */
  default dev.rota.agentapi.LiveMove.Outcome moveOf(Task task) {
    return null;
  }

  /**
   * A connection from the worker a VM leaves to the task it arrives at, on {@code channel} ({@link
   * dev.rota.agentapi.LiveMove#CHANNELS}).
   */
  default Conduit incoming(Task task, String channel) throws Refusal, IOException {
    throw new Refusal(409, "task " + task.id + " waits for no VM: only qemu VMs can arrive");
  }

  /** Whether the task is paused where it runs; a runtime that cannot pause has none paused. */
  default boolean paused(Task task) {
    return false;
  }

  default Task recover(Path record, Consumer<TaskView> changes) throws IOException {
    return null;
  }

  /**
   * Gives back what the task whose folder is {@code dir} held on the machine beyond its folder (a
   * guest's user and rules), once it is removed; its process has ended.
   */
  default void forget(String id, Path dir) {}
}
