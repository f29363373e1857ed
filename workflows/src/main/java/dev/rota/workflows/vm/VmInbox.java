package dev.rota.workflows.vm;

import dev.rota.core.lifecycle.ActionRule;
import dev.rota.core.lifecycle.UserAction;
import dev.rota.core.model.VmStatus;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.CompletablePromise;
import io.temporal.workflow.Workflow;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What a VM's workflow is sent, waiting for its loop: users' stops, starts, restarts and deletes,
 * and what the scheduler heard of its task. A user's action is judged twice by one rule ({@link
 * ActionRule}): when it arrives, so that a refusal changes nothing and is answered at once, and
 * when the loop reaches it, since what came before may have changed the VM.
 */
final class VmInbox {
  sealed interface Command {}

  record Act(UserAction action, CompletablePromise<String> done) implements Command {}

  record Delete() implements Command {}

  record Hear(TaskEvent event) implements Command {}

  /** A lease extension by {@code seconds}; done with when the lease now runs out. */
  record Extend(long seconds, CompletablePromise<String> done) implements Command {}

  private final String name;
  private final Supplier<VmStatus> status;
  private final Deque<Command> commands = new ArrayDeque<>();
  private boolean deleteRequested;

  /** Whether the stored state is loaded; until then only the loop can judge an action. */
  private boolean loaded;

  /** Why the VM can never take an action whatever its status, or null when it can. */
  private final Function<UserAction, String> never;

  /** The worker the VM is moving from, or null when it is not moving. */
  private final Supplier<String> movingFrom;

  VmInbox(
      String name,
      Supplier<VmStatus> status,
      Supplier<String> movingFrom,
      Function<UserAction, String> never) {
    this.name = name;
    this.status = status;
    this.movingFrom = movingFrom;
    this.never = never;
  }

  /**
   * Why the VM cannot take {@code action} while it moves, or null: its guest is being handed from
   * one worker to another, and neither may save or pause it meanwhile.
   */
  private String whileMoving(UserAction action) {
    String from = movingFrom.get();
    return from != null && (action == UserAction.SUSPEND || action == UserAction.PAUSE)
        ? "it is moving from worker " + from + ": " + action.wireName() + " it once it has moved"
        : null;
  }

  void loaded() {
    loaded = true;
  }

  boolean isEmpty() {
    return commands.isEmpty();
  }

  Command next() {
    return commands.poll();
  }

  /** A user's action, once the loop has carried it out: the status it left, or its refusal. */
  String act(UserAction action) {
    CompletablePromise<String> done = Workflow.newPromise();
    commands.add(new Act(action, done));
    return done.get();
  }

  /** The loop's turn at an action: carried out by {@code carryOut} if it is still allowed. */
  void answer(Act act, Function<UserAction, String> carryOut) {
    String moving = whileMoving(act.action());
    // A history from before this rule may hold such an action carried out: it replays as it ran.
    if (moving != null
        && Workflow.getVersion(REFUSED_WHILE_MOVING, Workflow.DEFAULT_VERSION, 1) == 1) {
      act.done().completeExceptionally(refused(act.action().wireName(), moving));
    } else if (allows(act.action())) {
      act.done().complete(carryOut.apply(act.action()));
    } else {
      act.done().completeExceptionally(notAllowed(act.action()));
    }
  }

  /**
   * Validates an update before it is accepted into the history. News of its task still waiting for
   * the loop (a signal taken in the same workflow task, say a report that the VM started) may
   * change the status the action is judged on, so the loop judges it after the news; only what no
   * news changes (a delete asked for, what the VM can never take) is refused here then.
   */
  void validate(UserAction action) {
    if (!loaded) {
      return;
    }
    boolean newsAhead = commands.stream().anyMatch(Hear.class::isInstance);
    if (newsAhead ? deleteRequested || cannot(action) != null : !allows(action)) {
      throw notAllowed(action);
    }
    String moving = newsAhead ? null : whileMoving(action);
    if (moving != null) {
      throw refused(action.wireName(), moving);
    }
  }

  /** The change id of refusing a suspend or a pause while the VM moves. */
  static final String REFUSED_WHILE_MOVING = "refuse-suspend-while-moving";

  /** A lease extension, once the loop has carried it out: when the lease now ends, or why not. */
  String extend(long seconds) {
    CompletablePromise<String> done = Workflow.newPromise();
    commands.add(new Extend(seconds, done));
    return done.get();
  }

  /**
   * Validates an extension before it is accepted, with {@code refusal} the lease's reason to refuse
   * it (null: none).
   */
  void validateExtension(Supplier<String> refusal) {
    String why = loaded ? extensionRefused(refusal) : null;
    if (why != null) {
      throw refused("extend the lease of", why);
    }
  }

  /** The loop's turn at an extension: carried out by {@code carryOut} if it is still allowed. */
  void answer(Extend extend, Supplier<String> refusal, Supplier<String> carryOut) {
    String why = extensionRefused(refusal);
    if (why == null) {
      extend.done().complete(carryOut.get());
    } else {
      extend.done().completeExceptionally(refused("extend the lease of", why));
    }
  }

  private String extensionRefused(Supplier<String> refusal) {
    return deleteRequested ? "it is being deleted" : refusal.get();
  }

  void hear(TaskEvent event) {
    if (!deleteRequested) {
      commands.add(new Hear(event));
    }
  }

  void delete() {
    if (!deleteRequested) {
      deleteRequested = true;
      commands.add(new Delete());
    }
  }

  /** The VM deletes itself (its TTL): from here on, actions are refused as for a user's delete. */
  void deleting() {
    deleteRequested = true;
  }

  private boolean allows(UserAction action) {
    return ActionRule.allows(action, status.get(), deleteRequested) && cannot(action) == null;
  }

  /** Why the VM can never take {@code action}, or null. */
  private String cannot(UserAction action) {
    return never.apply(action);
  }

  private ApplicationFailure notAllowed(UserAction action) {
    String never = cannot(action);
    return refused(
        action.wireName(),
        deleteRequested
            ? "it is being deleted"
            : never != null ? never : "it is " + status.get().wireName());
  }

  private ApplicationFailure refused(String what, String why) {
    return ApplicationFailure.newNonRetryableFailure(
        "cannot " + what + " VM " + name + ": " + why, VmWorkflow.NOT_ALLOWED);
  }
}
