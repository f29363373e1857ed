package dev.rota.api.schedules;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The cron expressions a schedule takes: five fields (minute, hour, day of month, month, day of
 * week), each {@code *}, a value, a range {@code a-b}, any of these with a step {@code /n}, or a
 * list of them; months and days may be named ({@code JAN}, {@code MON}); or one of {@code @yearly},
 * {@code @monthly}, {@code @weekly}, {@code @daily}, {@code @hourly}. Checked here so that a
 * mistake is a 400 naming the field that is wrong, before Temporal sees it.
 */
public final class CronExpressions {
  private CronExpressions() {}

  /**
   * @param anyDay whether {@code ?} (no particular day) may stand for the field, as in the days'
   */
  private record Field(String name, int min, int max, List<String> names, boolean anyDay) {}

  private static final List<String> MONTHS =
      List.of("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC");
  private static final List<String> DAYS = List.of("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT");

  private static final List<Field> FIELDS =
      List.of(
          new Field("minute", 0, 59, List.of(), false),
          new Field("hour", 0, 23, List.of(), false),
          new Field("day of month", 1, 31, List.of(), true),
          new Field("month", 1, 12, MONTHS, false),
          new Field("day of week", 0, 6, DAYS, true));

  private static final Set<String> SHORTHANDS =
      Set.of("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly");

  /** What is wrong with the expression, or empty when it is one a schedule takes. */
  public static Optional<String> problem(String expression) {
    String cron = expression.trim();
    if (cron.startsWith("@")) {
      return SHORTHANDS.contains(cron)
          ? Optional.empty()
          : Optional.of(cron + " is not one of " + new java.util.TreeSet<>(SHORTHANDS));
    }
    String[] parts = cron.split("\\s+");
    if (parts.length != FIELDS.size()) {
      return Optional.of(
          "has "
              + parts.length
              + " fields; a cron expression has 5: minute hour day-of-month month day-of-week"
              + " (0 2 * * MON-FRI), or use interval for seconds");
    }
    for (int i = 0; i < parts.length; i++) {
      Optional<String> wrong = problem(FIELDS.get(i), parts[i]);
      if (wrong.isPresent()) {
        return wrong;
      }
    }
    return Optional.empty();
  }

  private static Optional<String> problem(Field field, String text) {
    for (String item : text.split(",", -1)) {
      String range = item;
      int slash = item.indexOf('/');
      if (slash >= 0) {
        range = item.substring(0, slash);
        Integer step = number(item.substring(slash + 1));
        if (step == null || step < 1) {
          return wrong(field, text, "a step after / is a whole number of 1 or more");
        }
      }
      if (range.equals("*") || (range.equals("?") && field.anyDay())) {
        continue;
      }
      String[] ends = range.split("-", -1);
      if (ends.length > 2) {
        return wrong(field, text, item + " is not a value or a range a-b");
      }
      Integer first = value(field, ends[0]);
      Integer last = ends.length == 2 ? value(field, ends[1]) : first;
      if (first == null || last == null) {
        return wrong(
            field,
            text,
            "each value is "
                + field.min()
                + " to "
                + field.max()
                + (field.names().isEmpty() ? "" : " or a name such as " + field.names().get(1)));
      }
      if (first > last) {
        return wrong(field, text, range + " ends before it begins");
      }
    }
    return Optional.empty();
  }

  private static Optional<String> wrong(Field field, String text, String why) {
    return Optional.of("its " + field.name() + " field, " + text + ", is wrong: " + why);
  }

  private static Integer value(Field field, String text) {
    int named = field.names().indexOf(text.toUpperCase(Locale.ROOT));
    if (named >= 0) {
      return named + field.min();
    }
    Integer n = number(text);
    return n != null && n >= field.min() && n <= field.max() ? n : null;
  }

  private static Integer number(String text) {
    if (text.isEmpty() || text.length() > 4 || !text.chars().allMatch(Character::isDigit)) {
      return null;
    }
    return Integer.parseInt(text);
  }
}
