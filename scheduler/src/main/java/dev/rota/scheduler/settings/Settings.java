package dev.rota.scheduler.settings;

import java.time.Duration;

/** Checks shared by the settings records, with messages that name the property. */
final class Settings {
  private Settings() {}

  static void requirePositive(String property, Duration value) {
    if (value == null || value.isZero() || value.isNegative()) {
      throw new InvalidSettingException(
          property, String.valueOf(value), "must be a positive duration such as 5s or 3m");
    }
  }
}
