package dev.rota.api;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;

/**
 * Times as the API takes them: RFC 3339 date-times, as the OpenAPI document's {@code format:
 * date-time} says, e.g. {@code 2026-11-23T18:00:00Z} or {@code 2026-11-23t19:00:00.5+01:00}.
 */
public final class Rfc3339 {
  /**
   * The document's pattern for a date-time, with its format: what {@link #parse} takes (offsets up
   * to 18 hours, as Java's).
   */
  public static final String PATTERN =
      "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?([Zz]|[+-](0[0-9]|1[0-7]):[0-5][0-9]|[+-]18:00)$";

  private Rfc3339() {}

  public static Optional<Instant> parse(String text) {
    // RFC 3339 lets T and Z be lowercase; Java's parser does not.
    String upper = text.toUpperCase(Locale.ROOT);
    try {
      return Optional.of(OffsetDateTime.parse(upper).toInstant());
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
