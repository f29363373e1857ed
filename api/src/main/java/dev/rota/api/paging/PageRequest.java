package dev.rota.api.paging;

import dev.rota.api.problem.Problems;
import io.micronaut.core.annotation.Nullable;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.function.Function;

/**
 * {@code limit} and {@code cursor} of a list call. A cursor is opaque to clients: the sort key of
 * the last item served, tagged with the list it belongs to.
 */
public record PageRequest(int limit, @Nullable String after) {
  public static final int DEFAULT_LIMIT = 100;
  public static final int MAX_LIMIT = 1000;

  public static PageRequest of(@Nullable Integer limit, @Nullable String cursor, String list) {
    int n = limit == null ? DEFAULT_LIMIT : limit;
    if (n < 1 || n > MAX_LIMIT) {
      throw Problems.badRequest("limit", "must be between 1 and " + MAX_LIMIT + ", got " + n);
    }
    return new PageRequest(n, cursor == null || cursor.isEmpty() ? null : decode(cursor, list));
  }

  /** The sort key after which this page starts, as a number; {@code 0} for the first page. */
  public long afterNumber() {
    if (after == null) {
      return 0;
    }
    try {
      return Long.parseLong(after);
    } catch (NumberFormatException e) {
      throw badCursor();
    }
  }

  /** Asks for one more row than the limit, to know whether a next page exists. */
  public int fetchSize() {
    return limit + 1;
  }

  /** The page from rows fetched with {@link #fetchSize()}. */
  public <R, T> Page<T> page(List<R> rows, Function<R, String> sortKey, Function<R, T> view, String list) {
    boolean more = rows.size() > limit;
    List<R> served = more ? rows.subList(0, limit) : rows;
    String next = more ? encode(sortKey.apply(served.get(served.size() - 1)), list) : null;
    return new Page<>(served.stream().map(view).toList(), next);
  }

  static String encode(String key, String list) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString((list + ":" + key).getBytes(StandardCharsets.UTF_8));
  }

  private static String decode(String cursor, String list) {
    String text;
    try {
      text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw badCursor();
    }
    if (!text.startsWith(list + ":")) {
      throw badCursor();
    }
    return text.substring(list.length() + 1);
  }

  private static RuntimeException badCursor() {
    return Problems.badRequest("cursor", "not a cursor this list issued; start again without one");
  }
}
