package dev.rota.workflows.vm;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.lifecycle.UserAction;
import dev.rota.core.model.VmStatus;
import io.temporal.failure.ApplicationFailure;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** How an update is judged as it arrives, before the workflow's loop takes it. */
class VmInboxTest {
  private final AtomicReference<VmStatus> status = new AtomicReference<>(VmStatus.PENDING);
  private final VmInbox inbox = new VmInbox("vm-1", status::get, () -> null, action -> null);

  private static TaskEvent started() {
    return new TaskEvent(7, "vm-1.0", "w1", "started", null, null, 1_000, 1_000, true);
  }

  @Test
  void aRestartOfAPendingVmIsRefusedAtOnce() {
    inbox.loaded();
    ApplicationFailure refused =
        assertThrows(ApplicationFailure.class, () -> inbox.validate(UserAction.RESTART));
    assertTrue(refused.getOriginalMessage().contains("it is pending"), refused.getMessage());
  }

  @Test
  void newsWaitingForTheLoopLetsTheLoopJudgeTheAction() {
    inbox.loaded();
    // The signal telling of the start was taken in the same workflow task as the restart: the
    // status still says pending, the news ahead of the restart says running.
    inbox.hear(started());
    assertDoesNotThrow(() -> inbox.validate(UserAction.RESTART));
  }

  @Test
  void aDeleteAskedForIsRefusedEvenWithNewsAhead() {
    inbox.loaded();
    inbox.hear(started());
    inbox.delete();
    assertThrows(ApplicationFailure.class, () -> inbox.validate(UserAction.RESTART));
  }

  @Test
  void whatTheVmCanNeverTakeIsRefusedEvenWithNewsAhead() {
    VmInbox process =
        new VmInbox(
            "vm-1",
            status::get,
            () -> null,
            action -> action == UserAction.SUSPEND ? "a process VM cannot be suspended" : null);
    process.loaded();
    process.hear(started());
    assertThrows(ApplicationFailure.class, () -> process.validate(UserAction.SUSPEND));
  }
}
