package dev.rota.workflows.cluster;

import io.temporal.failure.ApplicationErrorCategory;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.Optional;

/**
 * A term that changes nothing leaves nothing in the scheduler's history: it ends its activity's
 * attempt by asking Temporal for the next attempt after the wait ({@code nextRetryDelay}), and that
 * attempt is the next term. Temporal records an activity's attempts only when the activity ends, so
 * an idle cluster's terms cost no events until one changes something, and any host may run the next
 * attempt as it may run any term. The failure is benign: logged at debug, counted as no error.
 */
public final class QuietTerms {
  private QuietTerms() {}

  /**
   * The type of the failure a quiet term ends its attempt with; the UI shows it as last failure.
   */
  public static final String FAILURE_TYPE = "QuietTerm";

  /**
   * The start of an attempt of the term activity: attempt n runs n - 1 terms after the first, not
   * woken, after the quiet terms that came before it. (A term that may rest is never a woken one:
   * the workflow tells every woken term.)
   */
  public static TermStart attempt(TermStart first, int attempt, long nowMillis) {
    if (attempt <= 1) {
      return first;
    }
    return new TermStart(
        first.term() + attempt - 1,
        nowMillis,
        false,
        first.quietTerms() + attempt - 1,
        first.restsWhenQuiet());
  }

  /**
   * The failure that ends a quiet term's attempt and asks for the next after the wait; empty when
   * the term changed something (the activity returns it to the workflow) or may not rest.
   */
  public static Optional<ApplicationFailure> rest(
      TermStart start, TermOutcome outcome, long nowMillis) {
    if (!start.restsWhenQuiet() || !outcome.quiet()) {
      return Optional.empty();
    }
    Duration wait =
        TermPace.after(
            outcome.observation(),
            start.quietTerms() + 1,
            0,
            outcome.decisions(),
            outcome.applied(),
            nowMillis);
    ApplicationFailure rest =
        ApplicationFailure.newBuilder()
            .setType(FAILURE_TYPE)
            .setMessage(TermLines.done(outcome.recorded(), wait))
            .setNextRetryDelay(wait)
            .setCategory(ApplicationErrorCategory.BENIGN)
            .build();
    rest.setStackTrace(new StackTraceElement[0]); // the cluster's calm, not the code's fault
    return Optional.of(rest);
  }
}
