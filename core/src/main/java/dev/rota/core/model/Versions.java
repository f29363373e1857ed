package dev.rota.core.model;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Versions as dotted numbers ({@code 6.1.0-amd64} is 6.1.0: what follows the numbers is left out),
 * compared number by number, a missing number counting as 0 ({@code 6.1} is {@code 6.1.0}); and
 * comparisons as a version constraint writes them: {@code ">= 6.1, < 7"}, every one to hold.
 */
final class Versions {
  private Versions() {}

  private static final Pattern COMPARISON =
      Pattern.compile("^\\s*(>=|<=|!=|>|<|=)\\s*(v?\\d{1,9}(?:\\.\\d{1,9}){0,5})\\s*$");

  /**
   * Whether a value, read as a version, meets every comparison of {@code comparisons}. Read by
   * hand, not by the patterns below: the scheduler asks this of every worker for every kind of VM,
   * and the submission has checked the comparisons already ({@link #problem}).
   */
  static Predicate<String> comparisons(String comparisons) {
    List<Predicate<long[]>> all = new ArrayList<>();
    for (String part : comparisons.split(",")) {
      String p = part.strip();
      int opLength = p.startsWith(">=") || p.startsWith("<=") || p.startsWith("!=") ? 2 : 1;
      String op = p.substring(0, Math.min(opLength, p.length()));
      long[] other = leading(p.substring(op.length()).strip());
      if (other == null || !"<>=!".contains(op.substring(0, 1))) {
        return value -> false;
      }
      IntPredicate holds =
          switch (op) {
            case ">=" -> c -> c >= 0;
            case "<=" -> c -> c <= 0;
            case ">" -> c -> c > 0;
            case "<" -> c -> c < 0;
            case "=" -> c -> c == 0;
            case "!=" -> c -> c != 0;
            default -> c -> false;
          };
      all.add(version -> holds.test(compare(version, other)));
    }
    return value -> {
      long[] version = leading(value);
      if (version == null) {
        return false;
      }
      for (Predicate<long[]> comparison : all) {
        if (!comparison.test(version)) {
          return false;
        }
      }
      return true;
    };
  }

  /** The dotted numbers {@code value} begins with (after a {@code v}), or null when none. */
  private static long[] leading(String value) {
    int i = value.startsWith("v") ? 1 : 0;
    long[] numbers = new long[6];
    int count = 0;
    while (count < numbers.length) {
      int start = i;
      long n = 0;
      while (i < value.length() && Character.isDigit(value.charAt(i)) && i - start < 9) {
        n = n * 10 + (value.charAt(i) - '0');
        i++;
      }
      if (i == start) {
        break;
      }
      numbers[count++] = n;
      if (i + 1 < value.length()
          && value.charAt(i) == '.'
          && Character.isDigit(value.charAt(i + 1))) {
        i++;
      } else {
        break;
      }
    }
    return count == 0 ? null : java.util.Arrays.copyOf(numbers, count);
  }

  /** Why {@code comparisons} is no list of version comparisons, or null when it is one. */
  static String problem(String comparisons) {
    for (String part : comparisons.split(",", -1)) {
      if (!COMPARISON.matcher(part).matches()) {
        return "is not a list of version comparisons such as \">= 6.1, < 7\": \""
            + part.strip()
            + "\"";
      }
    }
    return null;
  }

  private static int compare(long[] a, long[] b) {
    for (int i = 0; i < Math.max(a.length, b.length); i++) {
      long x = i < a.length ? a[i] : 0;
      long y = i < b.length ? b[i] : 0;
      if (x != y) {
        return Long.compare(x, y);
      }
    }
    return 0;
  }
}
