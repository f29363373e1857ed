package dev.rota.scheduler.settings;

import java.util.List;

/** The rules for the settings (docs/configuration.md) that the store and activities read. */
public final class RotaSettings {
  public static final List<SettingRule<?>> RULES =
      List.of(
          SettingRule.positiveDuration("rota.scheduler.interval"),
          SettingRule.positiveDuration("rota.scheduler.idle-interval"),
          SettingRule.positiveDuration("rota.workers.lost-after"),
          SettingRule.positiveDuration("rota.workers.offline-after"),
          SettingRule.positiveDuration("rota.workers.flaky-cooldown"),
          SettingRule.positiveDuration("rota.workers.probe-backoff-cap"),
          SettingRule.positiveDuration("rota.workers.task-failure-window"),
          new SettingRule<>(
              "rota.workers.remove-offline-after",
              java.time.Duration.class,
              d -> !d.isNegative(),
              "must be a duration such as 24h (0s: offline workers are never removed)"),
          new SettingRule<>(
              "rota.workers.probe-interval",
              java.time.Duration.class,
              d -> !d.isNegative(),
              "must be a duration such as 10s (0s: every ready worker is probed every term)"),
          new SettingRule<>(
              "rota.workers.disruption-threshold",
              Integer.class,
              n -> n >= 0 && n <= 100,
              "must be a percentage of the workers from 0 to 100 (100: failover is never held back)"),
          new SettingRule<>(
              "rota.workers.max-heartbeats-per-second",
              Integer.class,
              n -> n > 0,
              "must be a number of heartbeats a second the fleet is paced to, 1 or more, such as 50"),
          new SettingRule<>(
              "rota.workers.flaky-after-task-failures",
              Integer.class,
              n -> n >= 0,
              "must be 0 or more task failures (0: task failures never make a worker flaky)"),
          SettingRule.positiveDuration("rota.agents.timeout"),
          SettingRule.positiveDuration("rota.vms.restart-delay"),
          SettingRule.positiveDuration("rota.vms.max-restart-delay"),
          new SettingRule<>(
              "rota.vms.workflow-start-delay",
              java.time.Duration.class,
              d -> !d.isNegative() && d.toMinutes() < 10,
              "must be a duration under 10m such as 2s (0s: a VM's workflow is started as soon as it is stored)"),
          new SettingRule<>(
              "rota.scheduler.rebalance-moves-per-term",
              Integer.class,
              n -> n >= 0,
              SchedulerSettings.REBALANCE_EXPECTATION),
          new SettingRule<>(
              "rota.scheduler.woken-term-gap",
              java.time.Duration.class,
              SchedulerSettings::gapAllowed,
              SchedulerSettings.GAP_EXPECTATION));

  private RotaSettings() {}
}
