package dev.rota.store;

/**
 * The connection to the database was lost while a transaction was under way, possibly while COMMIT
 * was: whether it committed is not known yet. {@link CertainCommits#settle} finds out by the
 * transaction's mark; thrown to a caller, it says the database could not be asked for long enough,
 * and the write may have been stored.
 */
public class CommitInDoubtException extends RuntimeException {
  private final long mark;
  private final transient Object result;

  public CommitInDoubtException(long mark, Object result, RuntimeException lost) {
    super(
        "the database went away while a write was being committed; whether it was stored is not known",
        lost);
    this.mark = mark;
    this.result = result;
  }

  long mark() {
    return mark;
  }

  /** What the transaction's work returned, which is its result if it committed. */
  Object result() {
    return result;
  }

  /** The failure that lost the connection: the outcome, if the transaction did not commit. */
  RuntimeException lost() {
    return (RuntimeException) getCause();
  }
}
