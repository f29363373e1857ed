package dev.rota.testing;

import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A scrape of {@code /metrics} (Prometheus' text format), read as the tests need it. */
public final class PrometheusText {
  private static final Pattern NAME = Pattern.compile("(?m)^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]");

  private PrometheusText() {}

  /**
   * The value of the one sample whose name and labels are exactly {@code series}, if there is one.
   */
  public static Optional<Double> sample(String text, String series) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(text);
    return m.find() ? Optional.of(Double.parseDouble(m.group(1))) : Optional.empty();
  }

  /** The names of every series it has a sample of. */
  public static Set<String> names(String text) {
    Set<String> names = new TreeSet<>();
    Matcher line = NAME.matcher(text);
    while (line.find()) {
      names.add(line.group(1));
    }
    return names;
  }
}
