package dev.rota.settings;

import java.util.List;

/** The rules for the settings of API.md that the store and activities read. */
public final class RotaSettings {
  public static final List<SettingRule<?>> RULES =
      List.of(SettingRule.positiveDuration("rota.scheduler.interval"));

  private RotaSettings() {}
}
