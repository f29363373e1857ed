package dev.rota.api.paging;

import dev.rota.api.QueryValues;
import dev.rota.api.problem.Problems;
import io.micronaut.core.annotation.Nullable;
import java.util.List;
import java.util.function.Function;

/**
 * {@code limit} and {@code cursor} of a list call. A cursor is where the next page starts: the sort
 * key of the last item served, as the list's {@code nextCursor} gave it (a number for lists in
 * creation order, a name for lists by name). Any cursor of that form is a position a client may
 * start from, so the document can say exactly which cursors are valid.
 */
public record PageRequest(int limit, @Nullable String after) {
  public static final int DEFAULT_LIMIT = 100;
  public static final int MAX_LIMIT = 1000;

  /**
   * The form of a cursor into a list in creation order (empty: the first page); the document's
   * pattern for it.
   */
  public static final String NUMBERED_CURSOR = "^([0-9]{1,18})?$";

  /**
   * From the query's text ({@link QueryValues}); a cursor given empty is no cursor (the first
   * page).
   */
  public static PageRequest of(@Nullable String limit, @Nullable String cursor) {
    int n = limit == null ? DEFAULT_LIMIT : QueryValues.wholeNumber("limit", limit, 1, MAX_LIMIT);
    return new PageRequest(n, cursor == null || cursor.isEmpty() ? null : cursor);
  }

  /** The sort key after which this page starts, as a number; {@code 0} for the first page. */
  public long afterNumber() {
    if (after == null) {
      return 0;
    }
    if (!after.matches(NUMBERED_CURSOR)) {
      throw Problems.badRequest(
          "cursor", "must be a nextCursor this list gave (digits), got \"" + after + "\"");
    }
    return Long.parseLong(after);
  }

  /** The most a cursor into a list by name may be: the longest name. */
  public static final int MAX_NAME_CURSOR = 253;

  /** The name after which this page starts; empty for the first page. */
  public String afterName() {
    if (after == null) {
      return "";
    }
    if (after.length() > MAX_NAME_CURSOR) {
      throw Problems.badRequest(
          "cursor",
          "must be a nextCursor this list gave (a name), got one of "
              + after.length()
              + " characters");
    }
    return after;
  }

  /** Asks for one more row than the limit, to know whether a next page exists. */
  public int fetchSize() {
    return limit + 1;
  }

  /** The page from rows fetched with {@link #fetchSize()}. */
  public <R, T> Page<T> page(List<R> rows, Function<R, String> sortKey, Function<R, T> view) {
    boolean more = rows.size() > limit;
    List<R> served = more ? rows.subList(0, limit) : rows;
    String next = more ? sortKey.apply(served.get(served.size() - 1)) : null;
    return new Page<>(served.stream().map(view).toList(), next);
  }

  /**
   * Rows for {@link #page} that {@code keep} admits, read in batches from {@code fetch} (after a
   * sort key, at most so many) until a page's worth and one more are found or no rows are left: a
   * filter the store cannot apply still serves full pages, and the cursor is the last row served.
   */
  public <R> List<R> kept(
      java.util.function.BiFunction<R, Integer, List<R>> fetch,
      java.util.function.Predicate<R> keep) {
    List<R> kept = new java.util.ArrayList<>();
    R last = null;
    while (true) {
      List<R> batch = fetch.apply(last, FILTER_BATCH);
      for (R row : batch) {
        if (keep.test(row)) {
          kept.add(row);
          if (kept.size() == fetchSize()) {
            return kept;
          }
        }
      }
      if (batch.size() < FILTER_BATCH) {
        return kept;
      }
      last = batch.get(batch.size() - 1);
    }
  }

  /** How many rows a filtered list reads at a time. */
  static final int FILTER_BATCH = 500;
}
