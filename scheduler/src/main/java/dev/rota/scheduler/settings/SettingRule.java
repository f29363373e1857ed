package dev.rota.scheduler.settings;

import io.micronaut.core.convert.ConversionService;
import io.micronaut.core.value.PropertyResolver;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * What one setting must be. Checked against the raw value at start-up, because Micronaut's binding
 * quietly falls back to the default when a value does not convert, and a typo would go unnoticed.
 *
 * @param property the property, e.g. {@code rota.scheduler.interval}
 * @param type what the value must convert to
 * @param valid what the converted value must satisfy
 * @param expectation how to say it, completing "setting X=V ..."
 */
public record SettingRule<T>(
    String property, Class<T> type, Predicate<T> valid, String expectation) {

  public static SettingRule<Duration> positiveDuration(String property) {
    return new SettingRule<>(
        property,
        Duration.class,
        d -> !d.isNegative() && !d.isZero(),
        "must be a positive duration such as 5s or 3m");
  }

  public static SettingRule<Integer> port(String property) {
    return new SettingRule<>(
        property, Integer.class, p -> p > 0 && p < 65536, "must be a port number from 1 to 65535");
  }

  /** Throws {@link InvalidSettingException} for the first rule a configured value breaks. */
  public static void checkAll(
      PropertyResolver properties, ConversionService conversion, List<SettingRule<?>> rules) {
    rules.forEach(rule -> rule.check(properties, conversion));
  }

  void check(PropertyResolver properties, ConversionService conversion) {
    Optional<String> raw = properties.getProperty(property, String.class);
    if (raw.isEmpty()) {
      return;
    }
    Optional<T> value = conversion.convert(raw.get().strip(), type);
    if (value.isEmpty() || !valid.test(value.get())) {
      throw new InvalidSettingException(property, raw.get(), expectation);
    }
  }
}
